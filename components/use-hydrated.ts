"use client";
import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

// Whether React has attached to the page: false in the server's HTML and until hydration, then true. A control that
// does nothing without its script is disabled until then, so that a click on it is never lost (a click on a button
// of the server's HTML before hydration ran no handler: "Sign out everywhere" clicked right after a page load did
// nothing, a flaky e2e test).
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
