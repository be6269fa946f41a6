"use client";
// A warning before unsaved edits are lost: the browser's own "Leave site?" prompt on reload, close or a typed address
// (beforeunload), and a confirmation before a click on a link of this site leaves the page (the App Router's client
// navigation fires no beforeunload). A link opened elsewhere (new tab, modifier key) or to a part of this page
// (#fragment) is left alone.
import { useEffect } from "react";

// The question asked before an in-app link leaves the page with unsaved edits.
export const UNSAVED_QUESTION = "Leave this page? Your unsaved changes will be lost.";

// While `dirty`, warns before the page is left.
export function useUnsavedWarning(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    let leaving = false;
    function beforeUnload(e: BeforeUnloadEvent) {
      if (leaving) return;
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = "";
    }
    function click(e: MouseEvent) {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const link = (e.target as Element | null)?.closest?.("a[href]");
      if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== "_self")) return;
      if (link.hasAttribute("download")) return;
      const to = new URL(link.href, location.href);
      if (
        to.origin === location.origin &&
        to.pathname === location.pathname &&
        to.search === location.search
      ) {
        return;
      }
      if (window.confirm(UNSAVED_QUESTION)) {
        // Confirmed once: a full page load that follows must not ask again.
        leaving = true;
        return;
      }
      // Runs before React's handlers (capture, on the document): next/link sees the click prevented and stays.
      e.preventDefault();
    }
    window.addEventListener("beforeunload", beforeUnload);
    document.addEventListener("click", click, true);
    return () => {
      window.removeEventListener("beforeunload", beforeUnload);
      document.removeEventListener("click", click, true);
    };
  }, [dirty]);
}
