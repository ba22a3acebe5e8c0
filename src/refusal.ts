/**
 * The body of every refusal outside GraphQL and MCP: the v1 failure envelope
 * (docs/contract.md §2). The HTTP layer, the path check and REST all answer
 * with it, so it lives below them all.
 */
export const failure = (error: string): { success: false; error: string } => ({ success: false, error });
