// Landing page (placeholder until the portal lands).
export default function Home() {
  return (
    <main>
      <h1>Public Catalog API</h1>
      <p>
        Read the <a href="/public/v1/openapi.json">OpenAPI document</a>.
      </p>
    </main>
  );
}
