/** Messages between the grader and its launcher process (launcher.ts, launcherMain.ts), over Node's IPC channel. */

export type LauncherRequest =
  | { type: 'spawn'; id: number; file: string; args: string[]; detached: boolean; cwd?: string }
  | { type: 'kill'; id: number; signal: NodeJS.Signals };

export type LauncherReply =
  | { type: 'ready' }
  | { type: 'spawned'; id: number; pid: number }
  /** Sent with the pipe as the message's handle: 1 stdout, 2 stderr, 3 the channel. */
  | { type: 'stdio'; id: number; fd: 1 | 2 | 3 }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; message: string };
