/**
 * A fake GitHub for tests and the offline demo: a loopback REST API that keeps state and checks
 * requests against GitHub's OpenAPI description, and a bare git repository to push to.
 */
export { startGitHubServer, DEFAULT_ACTOR, GITHUB_COMMENT_LIMIT } from './server.js';
export type { GitHubServer, GitHubServerOptions, RecordedGitHubRequest } from './server.js';
export { createOriginRepo } from './origin-repo.js';
export type { FileTree, OriginRepo, OriginRepoOptions } from './origin-repo.js';
export { ARTIFACT_PREFIX, JOB_LOG_PREFIX } from './handlers/actions.js';
export type { GitHubFault } from './faults.js';
export { NOT_ACCESSIBLE } from './token-access.js';
export type { AccessLevel, TokenPermissions, TokenScope } from './token-access.js';
export type { OperationIndex, OperationMatch, RequestParts } from './operation-index.js';
export type {
  ArtifactSeed,
  CommentSeed,
  GitHubSeed,
  IssueSeed,
  JobSeed,
  LabelSeed,
  PullSeed,
  RepoSeed,
  RunSeed,
} from './seed.js';
export type * from './state.js';
export { startArtifactService } from './artifact-service.js';
export type {
  ArtifactFault,
  ArtifactOperation,
  ArtifactService,
  ArtifactServiceOptions,
  RecordedArtifactRequest,
} from './artifact-service.js';
export type { StoredArtifact } from './artifact-state.js';
