// Ctrl-C or `kill` during `run` and `demo` aborts the export through its AbortSignal: uploads are
// aborted and nothing is published.

/** An AbortSignal that fires on the first SIGINT/SIGTERM, so uploads are aborted cleanly. */
export function signalOnInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => controller.abort(new Error(`received ${name}`));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
