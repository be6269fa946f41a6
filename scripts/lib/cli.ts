import { ConfigError } from "../../lib/config";
import { DatabaseBusyError } from "./database";

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

// Runs a CLI's main function and turns its outcome into a message and an exit code (0 ok, 1 failure, 2 bad usage).
export async function runCli(main: () => Promise<void>, usageHint: string): Promise<never> {
  let code = 0;
  try {
    await main();
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`Error: ${err.message}\n${usageHint}`);
      code = 2;
    } else if (err instanceof ConfigError || err instanceof DatabaseBusyError || err instanceof CliError) {
      console.error(err.message);
      code = 1;
    } else {
      console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      code = 1;
    }
  }
  process.exit(code);
}
