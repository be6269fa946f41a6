import { useState } from "react";
import { fetchAnswer, type Answer } from "./request";

// What the try-it form needs to know of one parameter (serialisable from the server).
export interface TryItParam {
  name: string;
  type: string;
  description: string;
  allowed?: string[];
  array: boolean;
  boolean: boolean;
  example?: string;
  defaultValue?: string;
}

// The values of the parameters form: text and boolean fields by name, and the ticked values of list parameters.
export interface TryItParamValues {
  values: Record<string, string>;
  lists: Record<string, string[]>;
  setValue(name: string, value: string): void;
  setList(name: string, ticked: string[]): void;
  /** The query pairs to send, in parameter order; empty fields are left out. */
  query(): [string, string][];
}

// State of the parameters form of one endpoint.
export function useParamValues(params: TryItParam[]): TryItParamValues {
  const [values, setValues] = useState<Record<string, string>>({});
  const [lists, setLists] = useState<Record<string, string[]>>({});
  return {
    values,
    lists,
    setValue: (name, value) => setValues((v) => ({ ...v, [name]: value })),
    setList: (name, ticked) => setLists((l) => ({ ...l, [name]: ticked })),
    query() {
      const out: [string, string][] = [];
      for (const p of params) {
        const v = p.array && p.allowed ? (lists[p.name] ?? []).join(",") : (values[p.name] ?? "").trim();
        if (v !== "") out.push([p.name, v]);
      }
      return out;
    },
  };
}

// The request of the try-it: the last answer, or why the last request did not complete, whether one is under way,
// and the ETag of the last answer that had one (to send back in If-None-Match).
export function useTryItRequest() {
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [lastEtag, setLastEtag] = useState<string | null>(null);

  async function send(path: string, query: [string, string][], key: string, ifNoneMatch = "") {
    setPending(true);
    setFailure(null);
    try {
      const a = await fetchAnswer(path, query, key, ifNoneMatch);
      setAnswer(a);
      if (a.etag) setLastEtag(a.etag);
    } catch (err) {
      setFailure(`The request did not complete: ${err instanceof Error ? err.message : String(err)}`);
      setAnswer(null);
    } finally {
      setPending(false);
    }
  }

  return { answer, pending, failure, lastEtag, send };
}
