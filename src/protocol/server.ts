// The requests and notifications between the extension (client) and the VRAM Lens language server beyond LSP's own:
// the status bar, the panel, applying an advice item, revealing a key, the watchdog's view of what is being analyzed,
// and workspace trust. Plain types and method names; imported by both ends.
import type { PanelModel } from './messages';

/** Options the client passes when it starts the server. */
export interface ServerInit {
  /** vscode.workspace.isTrusted: an untrusted workspace reads only its own files and the Hugging Face cache, offline. */
  readonly trusted: boolean;
  /** The active l10n bundle (message -> translation), or undefined for English. */
  readonly bundle?: Readonly<Record<string, string>>;
  /** Document versions whose analysis ran past the time budget in an earlier server: not analyzed again. */
  readonly skipped?: readonly SkippedDocument[];
  /** The run the user chose for files that belong to several (file path -> entry file path). */
  readonly runChoices?: Readonly<Record<string, string>>;
}

export interface SkippedDocument {
  readonly uri: string;
  readonly version: number;
}

/** What the status bar shows for a document. */
export interface StatusResult {
  readonly state: 'none' | 'no-estimate' | 'estimate';
  readonly deviceBytes?: number;
  readonly peakBytes?: number;
  readonly reservedBytes?: number;
  readonly phase?: string;
  readonly gpu?: { readonly id: string; readonly memoryBytes: number };
  readonly fits?: boolean;
  readonly reason?: string;
}

export interface PanelResult {
  readonly model?: PanelModel;
  readonly reason?: string;
}

export const Methods = {
  /** Client -> server: { uri } -> StatusResult. */
  status: 'vramLens/status',
  /** Client -> server: { uri, strings } -> PanelResult. */
  panel: 'vramLens/panel',
  /** Client -> server: { uri, adviceId } -> { applied: boolean; message?: string }. */
  applyAdvice: 'vramLens/applyAdvice',
  /** Client -> server: ApplyChangesParams (the panel's what-if changes) -> ApplyResult. */
  applyChanges: 'vramLens/applyChanges',
  /** Client -> server: { uri, key } -> { start, end } | null. */
  keySpan: 'vramLens/keySpan',
  /** Server -> client: an analysis starts ({ uri, version }) or ends ({ uri: null }). */
  analyzing: 'vramLens/analyzing',
  /** Client -> server: the workspace was trusted. */
  trusted: 'vramLens/trusted',
  /** Client -> server: { uri } -> the entry files of the runs the file belongs to. */
  runs: 'vramLens/runs',
  /** Client -> server: { uri, entry }: follow this run for the file. */
  chooseRun: 'vramLens/chooseRun',
  /** Server -> client: analyses changed (the status bar and panel refresh). */
  refreshed: 'vramLens/refreshed',
  /**
   * Client -> server: a document too large to send ({ uri, chars, head: its first 64 KB, languageId }); the server says
   * at 1:1 that it is not analyzed, when its head looks like a training config.
   */
  tooLarge: 'vramLens/tooLarge',
} as const;

/** Documents longer than this (in characters) are not sent to the server: no analyzer reads that much. */
export const MAX_SYNCED_CHARS = 1024 * 1024;

/** The client's command that asks for GPUs per node and nodes and writes them as workspace settings. */
export const SET_GPU_COUNT_COMMAND = 'vramLens.setGpuCount';

/** The client's command that asks for a model (Hub id, folder or config.json) and writes vramLens.model for the workspace. */
export const SET_MODEL_COMMAND = 'vramLens.setModel';

/** The client's command that asks once whether VRAM Lens may fetch config.json from the Hub, and sets vramLens.allowNetwork. */
export const ALLOW_NETWORK_COMMAND = 'vramLens.allowNetwork';

/** The command behind every quick fix: the server recomputes and applies it only if the files are as they were. */
export const APPLY_FIX_COMMAND = 'vramLens.applyFix';

export interface ApplyFixArgs {
  readonly uri: string;
  readonly fixId: string;
  /** The text hash of every file the fix edits, as it was when the fix was offered. */
  readonly bases: Readonly<Record<string, string>>;
}
