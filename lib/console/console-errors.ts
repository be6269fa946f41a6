// Every error the console's routes can answer, one table: status, stable code, HTTP reason phrase, default message.
// Thrown anywhere in lib/console as a ConsoleError, mapped to a JSON response once (lib/console/http.ts).
export const CONSOLE_ERRORS = {
  CONSOLE_INVALID: { status: 400, error: "Bad Request", message: "The request is invalid." },
  CONSOLE_UNAUTHENTICATED: { status: 401, error: "Unauthorized", message: "Sign in to use the console." },
  CONSOLE_FORBIDDEN: {
    status: 403,
    error: "Forbidden",
    message: "Your role in this organization does not allow this.",
  },
  CONSOLE_CSRF: {
    status: 403,
    error: "Forbidden",
    message:
      "The request did not come from the console (origin or CSRF token missing or wrong). Reload the page.",
  },
  // An organization the user is not a member of answers like one that does not exist.
  CONSOLE_NOT_FOUND: { status: 404, error: "Not Found", message: "Not found." },
  CONSOLE_KEY_NOT_ACTIVE: {
    status: 409,
    error: "Conflict",
    message: "Only an active key that has not been rolled yet can be rolled.",
  },
  CONSOLE_CHANGELOG_NOT_PLANNED: {
    status: 409,
    error: "Conflict",
    message: "Only a planned (roadmap) entry can be promoted to released.",
  },
  // Members: the organization would be left without an owner.
  CONSOLE_LAST_OWNER: {
    status: 409,
    error: "Conflict",
    message: "An organization keeps at least one owner: make another member an owner first, then try again.",
  },
  CONSOLE_MEMBER_CONFLICT: {
    status: 409,
    error: "Conflict",
    message: "This person is already a member of the organization or has an open invitation.",
  },
  // An invitation link that is unknown, expired, already used or revoked.
  CONSOLE_INVITATION_GONE: {
    status: 410,
    error: "Gone",
    message: "This invitation link is no longer valid: ask for a new one.",
  },
  // Accounts: an organization that requires two-factor sign-in, refused to a member without it.
  CONSOLE_TWO_FACTOR_REQUIRED: {
    status: 403,
    error: "Forbidden",
    message:
      "This organization requires two-factor sign-in. Set it up on your account page (/console/account) to continue.",
  },
  CONSOLE_WRONG_PASSWORD: { status: 400, error: "Bad Request", message: "The password is not correct." },
  CONSOLE_WRONG_CODE: {
    status: 400,
    error: "Bad Request",
    message: "The code is not valid (or was already used). Enter the current code of your app.",
  },
  CONSOLE_ACCOUNT_CONFLICT: {
    status: 409,
    error: "Conflict",
    message: "The account is not in a state that allows this.",
  },
  CONSOLE_RESET_LINK_INVALID: {
    status: 410,
    error: "Gone",
    message:
      "This password reset link has expired or was already used. Ask an owner of your organization for a new one.",
  },
  CONSOLE_TOO_MANY_ATTEMPTS: {
    status: 429,
    error: "Too Many Requests",
    message: "Too many wrong passwords or codes. Try again later.",
  },
  CONSOLE_PAYLOAD_TOO_LARGE: {
    status: 413,
    error: "Payload Too Large",
    message: "The request body is too large (64 KB at most).",
  },
  CONSOLE_INTERNAL_ERROR: { status: 500, error: "Internal Server Error", message: "Internal server error." },
  CONSOLE_UNAVAILABLE: {
    status: 503,
    error: "Service Unavailable",
    message: "The console is unavailable for a moment; try again shortly.",
  },
} as const satisfies Record<string, { status: number; error: string; message: string }>;

// A stable error code of the console.
export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

// The JSON body of every console error.
export interface ConsoleErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: ConsoleErrorCode;
}

// The one error class of the console: a code from the table, optionally a more precise message.
export class ConsoleError extends Error {
  readonly status: number;
  constructor(
    readonly code: ConsoleErrorCode,
    message?: string,
  ) {
    super(message ?? CONSOLE_ERRORS[code].message);
    this.name = "ConsoleError";
    this.status = CONSOLE_ERRORS[code].status;
  }

  /** The response body of this error. */
  body(): ConsoleErrorBody {
    return {
      statusCode: this.status,
      error: CONSOLE_ERRORS[this.code].error,
      message: this.message,
      code: this.code,
    };
  }
}
