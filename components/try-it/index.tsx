"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { expandPath } from "@/lib/portal/code-samples";
import { ConditionalFieldset, useIfNoneMatch } from "./conditional-field";
import { CurlPreview } from "./curl-preview";
import { useParamValues, useTryItRequest, type TryItParam } from "./hooks";
import { KeyField, takeKey } from "./key-field";
import { ParamsFieldset, PathParamsFieldset } from "./params-form";
import { ResponseView } from "./response-view";

export type { TryItParam } from "./hooks";

// The try-it form of one endpoint: path parameters (required, percent-encoded into the path), query parameters, a
// key kept in session storage only, If-None-Match when the endpoint answers conditionally, a real same-origin request
// and its answer (a page of a list, or one item).
export function TryIt({
  path,
  scope,
  params,
  pathParams = [],
  baseUrl,
  demoKey,
  conditional = false,
}: {
  /** The path template (`/public/v1/products/{id}` for an item). */
  path: string;
  scope: string;
  params: TryItParam[];
  /** The path's parameters, each required. */
  pathParams?: TryItParam[];
  baseUrl: string;
  demoKey?: string;
  /** The endpoint documents If-None-Match (a list: ETag and 304). */
  conditional?: boolean;
}) {
  const id = useId();
  const keyRef = useRef<HTMLInputElement>(null);
  const form = useParamValues(params);
  const ifNoneMatch = useIfNoneMatch();
  const [pathValues, setPathValues] = useState<Record<string, string>>({});
  const target = expandPath(path, pathValues);
  const { answer, pending, failure, lastEtag, send } = useTryItRequest();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const key = takeKey(keyRef.current);
    await send(target, form.query(), key, conditional ? ifNoneMatch.header(lastEtag) : "");
  }

  return (
    <section className="try-it" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Try it</h2>
      <p className="muted">
        Sends a real request from your browser to this server. The key stays in this tab&apos;s session
        storage and is sent only to <code>{path}</code>. It needs the <code>{scope}</code> scope.
      </p>
      <form onSubmit={submit} className="try-it-form">
        <KeyField id={id} inputRef={keyRef} demoKey={demoKey} />
        {pathParams.length ? (
          <PathParamsFieldset
            id={id}
            params={pathParams}
            values={pathValues}
            setValue={(name, value) => setPathValues((v) => ({ ...v, [name]: value }))}
          />
        ) : null}
        {params.length ? <ParamsFieldset id={id} params={params} form={form} /> : null}
        {conditional ? (
          <ConditionalFieldset
            id={id}
            value={ifNoneMatch}
            lastEtag={lastEtag}
            what={pathParams.length ? "resource" : "list"}
          />
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={pending}>
            {pending ? "Sending…" : `Send GET ${path}`}
          </button>
        </div>
      </form>

      <div className="try-it-answer" aria-live="polite">
        {failure ? (
          <p role="alert" className="error-text">
            {failure}
          </p>
        ) : null}
        {answer ? <ResponseView answer={answer} item={pathParams.length > 0} /> : null}
        <CurlPreview
          baseUrl={baseUrl}
          path={answer ? answer.path : target}
          query={answer ? answer.query : form.query()}
          ifNoneMatch={answer ? answer.ifNoneMatch : conditional ? ifNoneMatch.header(lastEtag) : ""}
        />
      </div>
    </section>
  );
}
