// The French text of every refusal of a query string (400 PUBLIC_API_INVALID_QUERY), one module: what each kind of
// parameter accepts and why a value of the right form was refused, as the grammar (lib/catalog/list/query-grammar.ts)
// states them, and the messages of the parser (./params.ts) that quote them.
import type { Accepts, Refusal } from "@/lib/catalog/list/query-grammar";

// What a valid value looks like, in French: "Paramètre « x » invalide : <this> (reçu « … »)."
export function acceptsText(accepts: Accepts): string {
  switch (accepts.kind) {
    case "integer":
      return `entier de ${accepts.min} à ${accepts.max} attendu`;
    case "text":
      return `texte de ${accepts.max} caractères au plus attendu`;
    case "nonEmptyText":
      return `texte non vide de ${accepts.max} caractères au plus attendu`;
    case "id":
      return `identifiant non vide de ${accepts.max} caractères au plus attendu`;
    case "boolean":
      return "true ou false attendu";
    case "valueList":
      return `liste de valeurs séparées par des virgules parmi ${accepts.values.join(", ")} attendue`;
    case "sort":
      return `format champ.asc ou champ.desc attendu (champs triables : ${accepts.fields.join(", ")})`;
    case "instant":
      return `date et heure ISO 8601 avec fuseau horaire attendue (ex. ${accepts.example})`;
    case "cursor":
      return `curseur de 1 à ${accepts.maxDigits} chiffres décimaux attendu (le champ « cursor » d'une réponse précédente)`;
    case "namedList":
      return accepts.names === "ids"
        ? `liste de 1 à ${accepts.max} identifiants séparés par des virgules attendue`
        : `liste de 1 à ${accepts.max} identifiants produit (valeurs de SKU) séparés par des virgules attendue`;
  }
}

// Why a value of the parameter's form was refused, in French.
export function refusalText(r: Refusal): string {
  switch (r.refusal) {
    case "sortFormat":
      return `« ${r.token} » n'est pas au format champ.asc ou champ.desc (champs triables : ${r.fields.join(", ")})`;
    case "sortFieldUnknown":
      return `champ « ${r.field} » non triable (champs triables : ${r.fields.join(", ")})`;
    case "sortFieldRepeated":
      return `champ « ${r.field} » présent plusieurs fois`;
    case "instantFormat":
      return acceptsText({ kind: "instant", example: r.example });
    case "instantRange":
      return `instant compris entre ${r.from} et ${r.to} en UTC attendu, en ISO 8601 avec fuseau horaire (ex. ${r.example})`;
    case "tooManyValues":
      return `au plus ${r.max} valeurs séparées par des virgules attendues, ${r.count} reçues`;
  }
}

// A parameter the query does not take.
export function unknownParamText(name: string, accepted: string[]): string {
  if (accepted.length === 0)
    return `Paramètre « ${truncate(name)} » inconnu : cette ressource n'accepte aucun paramètre.`;
  return `Paramètre « ${truncate(name)} » inconnu. Paramètres acceptés : ${accepted.join(", ")}.`;
}

// A parameter given twice that takes one value.
export function repeatedParamText(name: string): string {
  return `Paramètre « ${name} » fourni plusieurs fois.`;
}

// A parameter whose value was refused: what it expects or why it was refused (`detail`), and the value as received.
export function invalidParamText(name: string, detail: string, received: string | undefined): string {
  return `Paramètre « ${name} » invalide : ${detail}${received !== undefined ? ` (reçu « ${truncate(received)} »)` : ""}.`;
}

function truncate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
