export const greeting = (): string => 'compiled from source';
