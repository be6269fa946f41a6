// The scope checkboxes of the key-creation form: each scope checked by default or not as the server decides (the
// read scopes are, products:write never is), a preview scope marked as such.
import type { ScopeChoice } from "@/lib/console/keys";

// The fieldset of scopes, with its help text.
export function ScopeChoices({ choices }: { choices: ScopeChoice[] }) {
  const preview = choices.some((c) => c.preview);
  return (
    <fieldset className="field">
      <legend>Scopes</legend>
      <div className="choices">
        {choices.map((c) => (
          <label key={c.scope} className="check">
            <input type="checkbox" name="scopes" value={c.scope} defaultChecked={c.checked} />
            {c.scope}
            {c.preview ? <span className="tag changed">preview</span> : null}
          </label>
        ))}
      </div>
      <p className="help">
        {preview
          ? "The read scopes are selected; deselect what the key does not need (at least one). Select products:write (write preview) only for a key that creates products."
          : "All scopes are selected; deselect what the key does not need (at least one)."}
      </p>
    </fieldset>
  );
}
