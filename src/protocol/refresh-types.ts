import type { GeometryValidator } from "../geo/validity.js";
import type { KnownManifest } from "../manifest/checks.js";
import type { Partition } from "../manifest/layout.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import type { ObjectStore } from "../store/types.js";
import type { ArtifactIndex } from "./artifact-index.js";
import type { PreparedInput, ResolvedInput } from "../inputs/identity.js";
import type { VersionsFile } from "../calendar/pins.js";
import type { ProvenCurrent } from "../manifest/snapshot-commit.js";
import type { TaskDefinition } from "../task/task.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * - promoted: computed, validated, published, and the manifest now points at it
 * - rekeyed: the same bytes as the current version, under a new key (an input, pin or code version changed, no row
 *   did); the manifest was pointed at the new key, so the next run is a no-op
 * - reconciled: the artifact already existed (work skipped); the manifest was pointed at it
 * - unchanged: the manifest already pointed at this key and these bytes; nothing was written
 * - superseded: another run promoted first; this run changed nothing
 * - invalid: validation or plausibility refused the result; nothing was published
 * - blocked: an upstream dataset's partition it reads is not promoted yet; nothing was written (exit 75: later)
 * - failed: anything else went wrong; nothing half-done is visible
 */
export const OUTCOMES = [
  "promoted",
  "rekeyed",
  "reconciled",
  "unchanged",
  "superseded",
  "invalid",
  "blocked",
  "failed",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A partition's manifest as a run found it at start, and its version: the only one the promotion may replace. */
export type ManifestAtStart = { manifest: Manifest; version: string };

export interface RefreshResult {
  partition: Partition;
  outcome: Outcome;
  runId: string;
  key?: string;
  sha256?: string;
  rows?: number;
  /** Rows the task dropped on purpose (ctx.drop), recorded in the manifest entry. */
  dropped?: number;
  /** Positions a float's rounding put past the world's edge, put on it (geo/wkb-rewrite.ts). */
  snapped?: number;
  /** Positions read through PROJ's ballpark shift ("datumShift": "ballpark"), recorded in the artifact's footer. */
  ballpark?: number;
  /** Features that were curves, read as straight segments as OGR makes them, recorded in the artifact's footer. */
  linearized?: number;
  /**
   * A failure's stable error code, when it had one: the store's own when the store could not be used ("Unavailable",
   * "AccessDenied", …), an input that does not exist ("InputMissing"). The CLI's exit code comes from it through
   * the one table (cli/exit-codes.ts).
   */
  code?: ErrorCode;
  message: string;
  /** The partition's manifest as this run left or found it (promoted, reconciled, unchanged). */
  manifest?: { key: string; version: string; current: ManifestEntry };
}

/**
 * How each partition is refreshed: the knobs a protocol stage reads, carried whole from the CLI (or a library
 * caller) in the job to whichever thread or process runs the partition. A new knob is a field here, its flag,
 * and the stage that reads it.
 */
export interface PartitionSettings {
  /**
   * Bytes georefresh may buffer of the artifact beyond compute's rows (memory-budget.ts; default 256 MiB); the
   * artifact's bytes never depend on it. Read by produce.
   */
  maxMemory?: number;
  /** Promote even when plausibility objects; recorded in the manifest entry. Read by verify. */
  overridePlausibility?: boolean;
}

/** What a caller of refreshPartition says. */
export interface RefreshOptions extends PartitionSettings {
  store: ObjectStore;
  task: TaskDefinition;
  partition: Partition;
  versions: VersionsFile;
  params?: Record<string, unknown>;
  validator?: GeometryValidator;
  /** Threads that encode the artifact's row groups (this one plus workers; default 1). Bytes do not depend on it. */
  encodeThreads?: number;
  runId?: string;
  /** A stop request (SIGINT/SIGTERM): ends waits on other runs (a memo claim), never a write in progress. */
  signal?: AbortSignal;
}

/** What a backfill shares between the partitions of one run: internals, never part of the public options. */
export interface RunContext {
  /** Input identities shared by the partitions of one run, so each input is identified once, at run start. */
  inputCache?: Map<string, Promise<ResolvedInput>>;
  /** A backfill's listing of the artifacts it may find (S3), so settled partitions skip their HEAD. */
  artifactIndex?: ArtifactIndex;
  /** Manifests the run already knows by version, so the plausibility history need not fetch them again. */
  knownManifests?: ReadonlyMap<string, KnownManifest>;
  /**
   * The partition's manifest as a dispatcher read it when this partition's run started (null: there was none),
   * so the run need not read it again; it is still the only version the promotion may replace.
   */
  start?: ManifestAtStart | null;
  /** Remote inputs the dispatcher already identified and downloaded, by URI: read from their copies. */
  prepared?: ReadonlyMap<string, PreparedInput>;
  /** Manifests the latest snapshot and a listing prove unchanged, by manifest key (snapshot.ts: provenCurrents). */
  proven?: ReadonlyMap<string, ProvenCurrent>;
}

export class RefreshError extends GeorefreshError {
  override readonly code: ErrorCode = "Refresh";

  constructor(
    message: string,
    readonly outcome: "invalid" | "failed",
    /** The store's error code when the store itself is why (a probe that failed): the result carries it. */
    readonly storeCode?: ErrorCode,
  ) {
    super(message);
    this.name = "RefreshError";
  }
}
