// The sandbox's errors: each carries a stable code, as the exporter's do, so a caller can tell a
// wrong option from a failure without reading the message. Only the ways of starting one wrongly
// are errors here; what goes wrong on a request is an HTTP answer (http-error.ts).

export class SandboxError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An option of startSandbox or createSandboxReport is out of range or malformed. */
export class SandboxConfigError extends SandboxError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/** A command-line flag of the sandbox is unknown, or its value malformed. */
export class SandboxUsageError extends SandboxError {
  constructor(message: string) {
    super('USAGE', message);
  }
}
