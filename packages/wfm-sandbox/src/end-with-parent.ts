// A command-line sandbox ends with the process that started it. `npx wfm-sandbox` (any npm exec,
// npm start, npm run) runs the bin through `sh -c`, and on SIGTERM or SIGINT npm signals that
// shell, not the bin: the shell dies of it without passing it on, and the server is left running,
// adopted by init, holding its port. Node has no parent-death signal, so the parent is polled.
// (The exporter's CLI does the same for its long-running commands: src/cli/end-with-parent.ts.)

/** How often the parent is looked for: a syscall, cheap; a second at most before the server stops. */
const POLL_MS = 500;

/**
 * Sends this process SIGTERM (so its own shutdown runs) once the parent it started with has gone.
 * Nothing to follow when started by init or as a container's process 1. Returns a stop function.
 */
export function endWithParent(pollMs = POLL_MS): () => void {
  const parent = process.ppid;
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
