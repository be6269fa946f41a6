// Where API keys are made: the console (signed out, its sign-in page; signed in, the keys of the user's first
// organization), and the words every page and guide uses to name that place. One home, so that every page sends
// people to the place that exists.

// The console's address, linked from the portal's header and from every mention of where keys are made.
export const CONSOLE_PATH = "/console";

// The path to an organization's keys in the console, as the portal names it.
export const KEYS_PLACE = "Console → your organization → API keys";

// Where keys are made, as a markdown link to the console (every guide's mention of that place).
export function keysLink(): string {
  return `[${KEYS_PLACE}](${CONSOLE_PATH})`;
}
