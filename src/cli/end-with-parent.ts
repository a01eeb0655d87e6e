// The CLI ends with the process that started it. `npx shift-export …` (any npm exec, npm start,
// npm run) runs the bin through `sh -c`, and on SIGTERM or SIGINT npm signals that shell, not the
// bin: the shell dies of it without passing it on, and the command — a sandbox, a worker, the API,
// an export — is left running, adopted by init, holding its port or its job. Node has no
// parent-death signal, so the parent is polled. (The wfm-sandbox package's own bin does the same:
// packages/wfm-sandbox/src/end-with-parent.ts.)

/** How often the parent is looked for: a syscall, cheap; a second at most before the command stops. */
const POLL_MS = 500;

/**
 * Sends this process SIGTERM (so the command's own graceful stop runs) once the parent it started
 * with has gone. Nothing to follow when started by init or as a container's process 1 (ppid 0 or 1).
 * Returns a stop function.
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
