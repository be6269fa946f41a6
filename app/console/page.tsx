import { redirect } from "next/navigation";
import { listMemberships } from "@/lib/console/access";
import { pageSession } from "./page-session";

export const dynamic = "force-dynamic";

// /console: the sign-in page when signed out, else the keys of the user's first organization; the product team
// without an organization goes to the changelog editor.
export default async function ConsoleHome() {
  const { db, user } = await pageSession();
  const [first] = await listMemberships(db, user.id);
  if (first) redirect(`/console/${encodeURIComponent(first.org.slug)}/keys`);
  if (user.isStaff) redirect("/console/changelog");
  return (
    <div className="docs-content">
      <h1>Console</h1>
      <p className="lead">
        Your account belongs to no organization yet. Ask an owner or admin of your organization to add you.
      </p>
    </div>
  );
}
