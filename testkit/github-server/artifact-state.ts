/**
 * What the fake artifact service remembers: each artifact from CreateArtifact on, its blob as the
 * storage endpoint receives it (staged blocks, then the committed blob), and once finalized its
 * size, hash and files.
 */

/** What CreateArtifact said of an artifact. */
interface ArtifactRecord {
  id: number;
  name: string;
  workflowRunBackendId: string;
  workflowJobRunBackendId: string;
  mimeType?: string;
  /** RFC 3339, when the upload asked for a retention period. */
  expiresAt?: string;
}

/** An artifact as it stands after FinalizeArtifact. */
export interface StoredArtifact extends ArtifactRecord {
  /** What FinalizeArtifact reported, checked against the blob. */
  size: number;
  hash?: string;
  /** The committed blob: the zip archive, or the file itself for an unarchived upload. */
  blob: Buffer;
  /** The archive's files by path, as UTF-8 text; a single entry named after the artifact when it was not a zip. */
  files: Record<string, string>;
}

export interface PendingArtifact extends ArtifactRecord {
  /** Path of the signed upload URL (`/<account>/<container>/<blob>`) and its `sig` parameter. */
  blobPath: string;
  signature: string;
  /** Staged blocks by block id (base64), not yet part of the blob. */
  blocks: Map<string, Buffer>;
  blob?: Buffer;
  blobContentType?: string;
  finalized?: StoredArtifact;
}

export class ArtifactState {
  readonly pending: PendingArtifact[] = [];
  readonly artifacts: StoredArtifact[] = [];
  private nextId = 1;

  takeId(): number {
    return this.nextId++;
  }

  /** Names are unique within a workflow run, finalized or not. */
  find(workflowRunBackendId: string, name: string): PendingArtifact | undefined {
    return this.pending.find(
      (artifact) =>
        artifact.workflowRunBackendId === workflowRunBackendId && artifact.name === name,
    );
  }

  byBlobPath(path: string): PendingArtifact | undefined {
    return this.pending.find((artifact) => artifact.blobPath === path);
  }
}
