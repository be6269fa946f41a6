// " Label: `a`, `b`, `c`." after a description: the values a parameter or field accepts.
export function AllowedValues({ label, values }: { label: string; values?: readonly string[] }) {
  if (!values) return null;
  return (
    <>
      {" "}
      {label}:{" "}
      {values.map((v, i) => (
        <span key={v}>
          {i ? ", " : ""}
          <code>{v}</code>
        </span>
      ))}
      .
    </>
  );
}
