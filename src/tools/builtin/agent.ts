/**
 * Agent (formerly Task): starts a subagent, a nested loop with a fresh conversation and a
 * restricted tool set, and returns only its final text and usage (docs/CC-COMPAT.md §3 "Task → Agent").
 * The loop itself is the session's (ToolContext.runSubagent, agent/subagent.ts); this file is the
 * model's side of it: the schema, the agent types, the declarations and the result.
 *
 * The call itself changes nothing: every call the subagent makes goes through the same pipeline,
 * policy and hooks as the parent's. So it is read-only for the permission decision (as in Claude
 * Code), and `Agent(<type>)` names the type as the rule specifier. Only an Explore agent, which
 * can make no change, is concurrency-safe: general-purpose agents may edit, so they run alone.
 */
import * as z from 'zod';
import type { Usage } from '../../model/types.js';
import { defineTool } from '../tool.js';
import type { ValidationResult } from '../tool.js';

export interface SubagentType {
  name: string;
  /** For the Agent tool's description: when the model should pick this type. */
  whenToUse: string;
  /** Only read-only calls (no Edit, Write, NotebookEdit; Bash only read-only commands). */
  readOnly: boolean;
  /** Added to the subagent's system prompt. */
  instructions: string;
}

export const DEFAULT_SUBAGENT_TYPE = 'general-purpose';

const SUBAGENT_INSTRUCTIONS = `# You are a subagent
Another agent started you for one task: the user message below. You have none of its conversation, so the task is all you know. Work on it on your own until it is done; nobody can answer questions.
Your final message is the only thing the other agent receives. Make it a complete, self-contained report of what you found or changed, with absolute file paths and the relevant names or lines, and nothing else.`;

export const SUBAGENT_TYPES: readonly SubagentType[] = [
  {
    name: DEFAULT_SUBAGENT_TYPE,
    whenToUse:
      'researches questions, searches code and carries out multi-step tasks, changes included. Tools: all of yours except Agent, ExitPlanMode and TodoWrite.',
    readOnly: false,
    instructions: SUBAGENT_INSTRUCTIONS,
  },
  {
    name: 'Explore',
    whenToUse:
      'a read-only agent for finding files, searching code and answering questions about the codebase. Tools: the read-only ones (Read, Glob, Grep, read-only Bash commands); it cannot change anything. Several run in parallel.',
    readOnly: true,
    instructions: `${SUBAGENT_INSTRUCTIONS}

# Read-only
You explore and report; you change nothing. Calls that would change files, run commands with effects or send data out are refused. Where something should change, say what and where in your report.`,
  },
];

/** The agent type called `name` (exact spelling), or undefined. */
export function findSubagentType(name: string): SubagentType | undefined {
  return SUBAGENT_TYPES.find((type) => type.name === name);
}

const inputSchema = z.object({
  description: z.string().min(1).describe('A short (3-5 word) description of the task.'),
  prompt: z
    .string()
    .min(1)
    .describe('The whole task for the agent: everything it needs to know and what to report.'),
  subagent_type: z
    .string()
    .optional()
    .describe(
      `The type of agent to start: ${SUBAGENT_TYPES.map((type) => type.name).join(' or ')}; default ${DEFAULT_SUBAGENT_TYPE}.`,
    ),
});

/** The structured output (PostToolUse `tool_response`): Claude Code's completed shape, plus ours. */
export interface AgentOutput {
  status: 'completed';
  agentId: string;
  /** Ours: the type that ran. */
  agentType: string;
  content: { type: 'text'; text: string }[];
  totalToolUseCount: number;
  totalDurationMs: number;
  /** Every input, cache and output token of the subagent's requests. */
  totalTokens: number;
  usage: Usage;
  /** Ours: its model turns and its cost, which the run's cost already includes. */
  numTurns: number;
  totalCostUsd: number;
  prompt: string;
}

export const NO_SUBAGENTS_MESSAGE =
  'Subagents cannot be started here (an agent cannot start another agent). Do the task yourself with your other tools.';

export function unknownTypeMessage(name: string): string {
  return `Agent type '${name}' not found. Available agents: ${SUBAGENT_TYPES.map((type) => type.name).join(', ')}`;
}

const description = `Starts a subagent: a separate agent with a fresh conversation that works on one task on its own and returns only its final message to you.

Agent types (subagent_type):
${SUBAGENT_TYPES.map((type) => `- ${type.name}: ${type.whenToUse}`).join('\n')}

When to use it:
- For open-ended searches and research that would take many steps and fill your context with material you will not need afterwards.
- To look into several independent questions at once: send several Explore calls in one message.
- Not for reading one known file or searching one known name: use Read, Glob or Grep directly.

How to use it:
- The agent sees nothing of your conversation. Write a prompt that stands alone: the goal, what you already know (files, names), whether it should change code or only research, and what to report back.
- Its final message is all you get back, and nobody else sees it: use what matters from it in your own work and answer.
- It works under the same permission policy as you: calls refused to you are refused to it.`;

export const agentTool = defineTool({
  name: 'Agent',
  aliases: ['Task'],
  description,
  internalInputSchema: inputSchema,
  userFacingName: (input) => (input?.subagent_type ? `Agent(${input.subagent_type})` : 'Agent'),
  isReadOnly: () => true,
  isConcurrencySafe: (input) => findSubagentType(typeOf(input))?.readOnly === true,

  checkPermissions: (input) => ({ access: 'other', ruleContent: typeOf(input) }),

  async validateInput(input, context): Promise<ValidationResult> {
    if (!findSubagentType(typeOf(input))) {
      return { result: false, message: unknownTypeMessage(typeOf(input)), errorCode: 1 };
    }
    if (!context.runSubagent) return { result: false, message: NO_SUBAGENTS_MESSAGE, errorCode: 2 };
    return { result: true };
  },

  async *call(input, context) {
    const runSubagent = context.runSubagent;
    if (!runSubagent) throw new Error(NO_SUBAGENTS_MESSAGE);
    const agentType = typeOf(input);
    const run = await runSubagent({
      description: input.description,
      prompt: input.prompt,
      subagentType: agentType,
      toolUseId: context.toolUseId,
      signal: context.signal,
    });
    if (run.isError) {
      // The model can narrow the task or do it itself; what the agent got to is not lost.
      const last = run.text ? `\nIts last message:\n${run.text}` : '';
      throw new Error(
        `The ${agentType} agent stopped before finishing (${run.subtype}): ${run.errors.join('; ') || 'no reason given'}.${last}`,
      );
    }
    const data: AgentOutput = {
      status: 'completed',
      agentId: run.agentId,
      agentType,
      content: [{ type: 'text', text: run.text }],
      totalToolUseCount: run.toolUseCount,
      totalDurationMs: run.durationMs,
      totalTokens:
        run.usage.input_tokens +
        run.usage.cache_creation_input_tokens +
        run.usage.cache_read_input_tokens +
        run.usage.output_tokens,
      usage: run.usage,
      numTurns: run.numTurns,
      totalCostUsd: run.totalCostUsd,
      prompt: input.prompt,
    };
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId) {
    const answer = output.content.filter((block) => block.text.trim() !== '');
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: [
        ...(answer.length > 0
          ? answer
          : [{ type: 'text' as const, text: 'The agent finished without a final message.' }]),
        {
          type: 'text',
          text: `<usage>total_tokens: ${output.totalTokens}\ntool_uses: ${output.totalToolUseCount}\nduration_ms: ${output.totalDurationMs}</usage>`,
        },
      ],
    };
  },
});

function typeOf(input: { subagent_type?: string | undefined }): string {
  return input.subagent_type ?? DEFAULT_SUBAGENT_TYPE;
}
