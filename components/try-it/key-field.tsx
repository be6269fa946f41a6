import Link from "next/link";
import { useEffect, type RefObject } from "react";
import { CONSOLE_PATH, KEYS_PLACE } from "@/lib/portal/console-keys";

// Where the key is kept: this tab's session storage only.
export const KEY_STORAGE = "pca-try-it-key";

// The key typed in the field, trimmed; kept in session storage for the next page of this tab, or forgotten when empty.
export function takeKey(input: HTMLInputElement | null): string {
  const key = input?.value.trim() ?? "";
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  return key;
}

// The API key field: an uncontrolled password input filled from session storage, and the demo key when offered.
export function KeyField({
  id,
  inputRef,
  demoKey,
}: {
  id: string;
  inputRef: RefObject<HTMLInputElement | null>;
  demoKey?: string;
}) {
  useEffect(() => {
    const saved = sessionStorage.getItem(KEY_STORAGE);
    if (saved && inputRef.current && !inputRef.current.value) inputRef.current.value = saved;
    // Opened by the console's "Try it" (/reference/<resource>#try-it): the form it opened has the focus.
    if (location.hash === "#try-it") inputRef.current?.focus();
  }, [inputRef]);

  function fillDemoKey() {
    if (inputRef.current && demoKey) {
      inputRef.current.value = demoKey;
      sessionStorage.setItem(KEY_STORAGE, demoKey);
      inputRef.current.focus();
    }
  }

  return (
    <div className="field">
      <label htmlFor={`${id}-key`}>API key</label>
      <div className="key-row">
        <input
          ref={inputRef}
          id={`${id}-key`}
          name="apiKey"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="pca_…"
          aria-describedby={`${id}-key-help`}
        />
        {demoKey ? (
          <button type="button" className="secondary" onClick={fillDemoKey}>
            Use the demo key (acme)
          </button>
        ) : null}
      </div>
      <p id={`${id}-key-help`} className="help">
        {demoKey
          ? "The embedded demo is running: you may use the key of its acme organization, or paste"
          : "Paste"}{" "}
        a key made in <Link href={CONSOLE_PATH}>{KEYS_PLACE}</Link>.
      </p>
    </div>
  );
}
