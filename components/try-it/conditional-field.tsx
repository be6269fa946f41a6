import { useState } from "react";

// What the If-None-Match field holds: a tag typed by hand, or the ETag of the last answer while the box is ticked.
export interface IfNoneMatchValue {
  typed: string;
  followLast: boolean;
  setTyped(value: string): void;
  setFollowLast(on: boolean): void;
  /** The header to send (empty: none). */
  header(lastEtag: string | null): string;
}

// State of the If-None-Match field of one try-it form.
export function useIfNoneMatch(): IfNoneMatchValue {
  const [typed, setTyped] = useState("");
  const [followLast, setFollowLast] = useState(false);
  return {
    typed,
    followLast,
    setTyped,
    setFollowLast,
    header: (lastEtag) => (followLast ? (lastEtag ?? "") : typed).trim(),
  };
}

// The request headers of a conditional try-it (a list, or a resource read whole): If-None-Match, typed or filled with
// the ETag of the last answer.
export function ConditionalFieldset({
  id,
  value,
  lastEtag,
  what,
}: {
  id: string;
  value: IfNoneMatchValue;
  lastEtag: string | null;
  /** What the ETag stands for, as the help text names it. */
  what: "list" | "resource";
}) {
  const fid = `${id}-if-none-match`;
  const help = `${fid}-help`;
  return (
    <fieldset className="params">
      <legend>Request headers</legend>
      <div className="field">
        <label htmlFor={fid}>
          <code>If-None-Match</code> <span className="type">string</span>
        </label>
        <input
          id={fid}
          name="ifNoneMatch"
          type="text"
          spellCheck={false}
          value={value.followLast ? (lastEtag ?? "") : value.typed}
          readOnly={value.followLast}
          placeholder={
            value.followLast ? "(no ETag yet: send once first)" : '"…" (an ETag of an earlier answer)'
          }
          aria-describedby={help}
          onChange={(e) => value.setTyped(e.target.value)}
        />
        <label className="check">
          <input
            type="checkbox"
            name="sendLastEtag"
            checked={value.followLast}
            onChange={(e) => {
              // Unticked, the field keeps the tag it showed, to edit or clear.
              if (!e.target.checked && lastEtag) value.setTyped(lastEtag);
              value.setFollowLast(e.target.checked);
            }}
          />
          Send the ETag of the last answer
        </label>
        <p id={help} className="help">
          {`While the ${what} is unchanged since the answer that carried this ETag, the API answers 304 Not Modified with no body (counted against the quota like any request).`}
        </p>
      </div>
    </fieldset>
  );
}
