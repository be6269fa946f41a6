import type { TryItParam, TryItParamValues } from "./hooks";

// The query parameters of the form, in the endpoint's order (ids derive from the form's id).
export function ParamsFieldset({
  id,
  params,
  form,
}: {
  id: string;
  params: TryItParam[];
  form: TryItParamValues;
}) {
  return (
    <fieldset className="params">
      <legend>Query parameters</legend>
      {params.map((p) =>
        p.array && p.allowed ? (
          <ChoiceField key={p.name} id={id} param={p} allowed={p.allowed} form={form} />
        ) : (
          <ValueField key={p.name} id={id} param={p} form={form} />
        ),
      )}
    </fieldset>
  );
}

// A list parameter with allowed values: one checkbox per value, sent comma-separated in the order ticked.
function ChoiceField({
  id,
  param: p,
  allowed,
  form,
}: {
  id: string;
  param: TryItParam;
  allowed: string[];
  form: TryItParamValues;
}) {
  const help = `${id}-p-${p.name}-help`;
  const selected = form.lists[p.name] ?? [];
  return (
    <fieldset className="field choice" aria-describedby={help}>
      <legend>
        <code>{p.name}</code> <span className="type">{p.type}</span>
      </legend>
      <div className="choices">
        {allowed.map((v) => (
          <label key={v} className="check">
            <input
              type="checkbox"
              name={p.name}
              value={v}
              checked={selected.includes(v)}
              onChange={(e) =>
                form.setList(p.name, e.target.checked ? [...selected, v] : selected.filter((s) => s !== v))
              }
            />
            <code>{v}</code>
          </label>
        ))}
      </div>
      <p id={help} className="help">
        {p.description}
      </p>
    </fieldset>
  );
}

// Any other parameter: a true / false / not-sent select for booleans, a text input otherwise.
function ValueField({ id, param: p, form }: { id: string; param: TryItParam; form: TryItParamValues }) {
  const fid = `${id}-p-${p.name}`;
  const help = `${fid}-help`;
  return (
    <div className="field">
      <label htmlFor={fid}>
        <code>{p.name}</code> <span className="type">{p.type}</span>
      </label>
      {p.boolean ? (
        <select
          id={fid}
          name={p.name}
          value={form.values[p.name] ?? ""}
          aria-describedby={help}
          onChange={(e) => form.setValue(p.name, e.target.value)}
        >
          <option value="">(not sent)</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : (
        <input
          id={fid}
          name={p.name}
          type="text"
          inputMode={p.type === "integer" ? "numeric" : undefined}
          value={form.values[p.name] ?? ""}
          placeholder={p.example ?? p.defaultValue ?? ""}
          aria-describedby={help}
          onChange={(e) => form.setValue(p.name, e.target.value)}
        />
      )}
      <p id={help} className="help">
        {p.description}
        {p.defaultValue !== undefined ? ` Default: ${p.defaultValue}.` : ""}
      </p>
    </div>
  );
}

// The path parameters of the form (`{id}`): one required text input each; the value goes percent-encoded into the
// path.
export function PathParamsFieldset({
  id,
  params,
  values,
  setValue,
}: {
  id: string;
  params: TryItParam[];
  values: Record<string, string>;
  setValue(name: string, value: string): void;
}) {
  return (
    <fieldset className="params">
      <legend>Path parameters</legend>
      {params.map((p) => {
        const fid = `${id}-path-${p.name}`;
        return (
          <div className="field" key={p.name}>
            <label htmlFor={fid}>
              <code>{p.name}</code> <span className="type">{p.type}</span>{" "}
              <span className="muted">required</span>
            </label>
            <input
              id={fid}
              name={p.name}
              type="text"
              required
              autoComplete="off"
              spellCheck={false}
              value={values[p.name] ?? ""}
              placeholder={p.example ?? ""}
              aria-describedby={`${fid}-help`}
              onChange={(e) => setValue(p.name, e.target.value)}
            />
            <p id={`${fid}-help`} className="help">
              {p.description}
            </p>
          </div>
        );
      })}
    </fieldset>
  );
}
