import { ConfigError } from "../../lib/config";

// A command line that cannot be understood: the message is printed with a hint, and the exit code is 2.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

// A failure the user can act on (unknown organization, key not found): the message alone is printed, exit code 1.
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CliError";
  }
}

// How a CLI words its usage errors (exit code 2) and unexpected errors (exit code 1), when not as runCli does by
// default: `Error: <message>` and the usage hint, and the error's stack.
export interface CliMessages {
  usage(message: string): string;
  unexpected?(err: unknown): string;
}

function stackOf(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

// Runs a CLI's main function and turns its outcome into a message and an exit code (0 ok, 1 failure, 2 bad usage).
export async function runCli(main: () => Promise<void>, usage: string | CliMessages): Promise<never> {
  const messages: CliMessages =
    typeof usage === "string" ? { usage: (message) => `Error: ${message}\n${usage}` } : usage;
  const unexpected = messages.unexpected ?? stackOf;
  let code = 0;
  try {
    await main();
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(messages.usage(err.message));
      code = 2;
    } else if (err instanceof ConfigError || err instanceof CliError) {
      console.error(err.message);
      code = 1;
    } else {
      console.error(unexpected(err));
      code = 1;
    }
  }
  process.exit(code);
}
