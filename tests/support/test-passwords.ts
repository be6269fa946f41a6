// The passwords the e2e specs type in, in one place: the server-log scan of `npm test` (scripts/lib/log-scan.ts)
// looks for each of them verbatim in every collected log (the demo accounts' generated ones it reads from the
// servers' data folders).
export const TEST_PASSWORDS = {
  // members.spec.ts: the invited member's new account.
  invitedMember: "a new password 123",
  // two-factor.spec.ts: the fresh owner and member, and the member's after a reset.
  freshOwner: "fresh owner password 1",
  freshMember: "fresh member password 1",
  memberAfterReset: "member password after reset",
} as const;
