// The client's address as the server in front of the app wrote it, and whether it is this machine.

// The last X-Forwarded-For hop: the one written by the server in front of us (scripts/serve.mjs writes the socket
// address there unless TRUST_PROXY=true, in which case the trusted proxy appended it).
export function clientAddress(headers: { get(name: string): string | null }): string {
  const xff = headers.get("x-forwarded-for");
  const comma = xff ? xff.lastIndexOf(",") : -1;
  const hop = xff ? xff.slice(comma + 1).trim() : "";
  return hop || "unknown";
}

// True for an address of this machine: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6.
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  if (a === "::1" || a === "0:0:0:0:0:0:0:1") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
