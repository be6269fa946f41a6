import { randomBytes } from "node:crypto";

// A generated portal password: 16 URL-safe characters (96 random bits), so it can be pasted anywhere.
export function generatePassword(): string {
  return randomBytes(12).toString("base64url");
}

// A password piped to standard input (`--password-stdin`): everything read, less one final line break.
export async function readPasswordFromStdin(stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let text = "";
  stdin.setEncoding("utf8");
  for await (const chunk of stdin) text += chunk as string;
  return text.replace(/\r?\n$/, "");
}
