// Types of docs-inputs.mjs, for __tests__/scripts/docs-inputs.test.ts.
export const ACTION_PATH: string;
export const DOC_PATH: string;

export function renderInputsDoc(
  actionText: string,
  docText: string,
  docPath?: string,
): Promise<string>;
