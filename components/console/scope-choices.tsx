"use client";
// The scope checkboxes of the key-creation form: each scope checked by default or not as the server decides (the
// read scopes are, products:write never is), a preview scope marked as such; the help text says what is selected now.
import { useState } from "react";
import type { ScopeChoice } from "@/lib/console/keys";

// What the help text says of the selection.
export function scopesHelp(choices: readonly ScopeChoice[], selected: ReadonlySet<string>): string {
  const read = choices.filter((c) => !c.preview);
  const chosen = choices.filter((c) => selected.has(c.scope));
  const write = choices.some((c) => c.preview)
    ? " Select products:write (write preview) only for a key that creates products."
    : "";
  if (chosen.length === 0) return `No scope is selected: select at least one.${write}`;
  if (read.every((c) => selected.has(c.scope)) && chosen.length === read.length) {
    return `All ${read.length} read scopes are selected; deselect what the key does not need (at least one).${write}`;
  }
  return `Selected: ${chosen.map((c) => c.scope).join(", ")}.${write}`;
}

// The fieldset of scopes, with its help text and, after a refused create, its error.
export function ScopeChoices({
  choices,
  idPrefix = "scope",
  error = null,
  hydrated,
}: {
  choices: ScopeChoice[];
  /** Whether React has attached (useHydrated): until then the boxes are disabled, since a box changed in the
   * server's HTML would not be in the selection that the help text and the form's submit read. */
  hydrated: boolean;
  /** The checkboxes' ids are idPrefix-0, idPrefix-1, …: the first takes the focus on an error. */
  idPrefix?: string;
  error?: string | null;
}) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(
    () => new Set(choices.filter((c) => c.checked).map((c) => c.scope)),
  );
  function toggle(scope: string, on: boolean) {
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });
  }
  const describedBy = [error ? `${idPrefix}-error` : null, `${idPrefix}-help`].filter(Boolean).join(" ");
  return (
    <fieldset className="field" aria-describedby={describedBy}>
      <legend>Scopes</legend>
      <div className="choices">
        {choices.map((c, i) => (
          <label key={c.scope} className="check">
            <input
              id={`${idPrefix}-${i}`}
              type="checkbox"
              name="scopes"
              value={c.scope}
              checked={selected.has(c.scope)}
              disabled={!hydrated}
              onChange={(e) => toggle(c.scope, e.target.checked)}
            />
            <code>{c.scope}</code>
            {c.preview ? <span className="tag changed">preview</span> : null}
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${idPrefix}-error`} className="field-error">
          {error}
        </p>
      ) : null}
      <p id={`${idPrefix}-help`} className="help">
        {scopesHelp(choices, selected)}
      </p>
    </fieldset>
  );
}
