// The client address the server in front wrote, and what counts as this machine (the demo key's gate).
import { describe, expect, it } from "vitest";
import { clientAddress, isLoopback } from "@/lib/public-api/client-address";

describe("client address", () => {
  it("is the last X-Forwarded-For hop", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "127.0.0.1, 203.0.113.9" }))).toBe("203.0.113.9");
    expect(clientAddress(new Headers())).toBe("unknown");
  });

  it.each(["127.0.0.1", "127.8.9.10", "::1", "[::1]", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"])(
    "%s is loopback",
    (a) => {
      expect(isLoopback(a)).toBe(true);
    },
  );

  it.each([
    "203.0.113.9",
    "10.0.0.1",
    "::ffff:10.0.0.1",
    "128.0.0.1",
    "127.0.0.1.evil",
    "unknown",
    "",
    "fe80::1",
  ])("%s is not loopback", (a) => {
    expect(isLoopback(a)).toBe(false);
  });
});
