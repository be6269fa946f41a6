// How the mirror words what went wrong: a refused key, a server without the previews, a server or a database that
// cannot be reached, a mirror of another server. Each is a MirrorError, whose message alone is printed (exit 1).
import { CatalogApiError, CatalogNetworkError } from "@/clients/typescript/src/index";

// A failure the user can act on: its message says what happened and what to do.
export class MirrorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MirrorError";
  }
}

// The run was stopped (Ctrl-C, SIGTERM) while loading: the load's transaction was rolled back.
export class MirrorStopped extends Error {
  constructor() {
    super("stopped");
    this.name = "MirrorStopped";
  }
}

// Whether an error is the API's answer with this status.
export function isStatus(err: unknown, status: number): err is CatalogApiError {
  return err instanceof CatalogApiError && err.status === status;
}

// The server's answer or the network's failure in a few words (never the key).
export function describeFailure(err: unknown): string {
  if (err instanceof CatalogApiError) {
    const body = err.body as { message?: unknown } | undefined;
    const said = typeof body?.message === "string" ? `: ${body.message}` : "";
    return `${err.status} ${err.code}${said}${err.requestId ? ` (request ${err.requestId})` : ""}`;
  }
  if (err instanceof AggregateError && !err.message)
    return [...new Set(err.errors.map(describeFailure))].join("; ");
  if (err instanceof Error) {
    const text = err.message || (err as { code?: string }).code || err.name;
    const cause = (err as { cause?: unknown }).cause;
    if (!(cause instanceof Error)) return text;
    // A cause already said (fetch's "fetch failed") is skipped for its own cause (the refused connection).
    const why = text.includes(cause.message) ? describeFailure((cause as { cause?: unknown }).cause) : "";
    return text.includes(cause.message)
      ? why
        ? `${text}: ${why}`
        : text
      : `${text}: ${describeFailure(cause)}`;
  }
  return err === undefined ? "" : String(err);
}

// The MirrorError for a failure of the API or of the network (anything else is returned as it is).
export function explainServerFailure(err: unknown, baseUrl: string): unknown {
  if (err instanceof CatalogNetworkError)
    return new MirrorError(
      `Cannot reach the server at ${baseUrl}: ${describeFailure(err)}.\n` +
        "Check --base-url (PCA_BASE_URL) and that the server is running.",
      { cause: err },
    );
  if (!(err instanceof CatalogApiError)) return err;
  if (err.status === 401)
    return new MirrorError(
      `The key was refused (${describeFailure(err)}).\nCheck --key (PCA_API_KEY): a key of the organization to ` +
        "mirror, not expired nor revoked (npm run keys -- list --org <slug>).",
      { cause: err },
    );
  if (err.status === 403)
    return new MirrorError(
      `The key may not read the catalog (${describeFailure(err)}): the mirror needs a key with read scopes.`,
      { cause: err },
    );
  if (err.status === 404)
    return new MirrorError(
      `The server at ${baseUrl} has no export or change feed (${describeFailure(err)}).\n` +
        "The mirror needs the preview features `changes` and `export`: start the server with " +
        "PUBLIC_API_PREVIEW=changes,export (or all). Check too that --base-url is the API's server.",
      { cause: err },
    );
  return new MirrorError(`The server at ${baseUrl} failed: ${describeFailure(err)}.`, { cause: err });
}
