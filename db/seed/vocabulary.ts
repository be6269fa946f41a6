// French vocabulary of the demo catalogs: two flavours (home, fashion) from which every label is composed.
import type { AttributeType } from "@/db/schema";

type Gender = "m" | "f";

// One product noun: its gender (for adjective agreement) and the family its products belong to.
export interface Noun {
  text: string;
  gender: Gender;
  family: string;
}

// A leaf of the master category tree and the nouns of the products filed under it.
export interface Leaf {
  label: string;
  nouns: Noun[];
}

// A branch (second level) of the master tree.
export interface Branch {
  label: string;
  leaves: Leaf[];
}

// A product family: code, French label and the price range of its products, in euros.
export interface FamilySpec {
  code: string;
  label: string;
  price: [number, number];
  weight: [number, number];
  /** Codes of attributes attached to the family beyond the common ones. */
  extra: string[];
}

// An attribute of the catalog.
export interface AttributeSpec {
  code: string;
  label: string;
  type: AttributeType;
  unique?: boolean;
  scopable?: boolean;
}

// A channel of the organization.
export interface ChannelSpec {
  code: string;
  label: string;
}

// Everything a flavour contributes to a generated catalog.
export interface Flavour {
  brand: string;
  channels: ChannelSpec[];
  masterRoot: string;
  branches: Branch[];
  /** Non-master trees: root label and child labels. */
  secondary: { label: string; children: string[] }[];
  families: FamilySpec[];
  attributes: AttributeSpec[];
  /** Attribute codes attached to every family, with whether they are required. */
  common: [code: string, required: boolean][];
  adjectives: [masculine: string, feminine: string][];
  materials: string[];
  colors: string[];
  /**
   * Labels of the options of the SELECT and MULTI_SELECT attributes, in their order, by attribute code (each code is
   * codeOf(label)); color's and material's options are the colors and materials above.
   */
  options: Record<string, string[]>;
  /** Phrase completing "Notre <noun> <adjective> apporte une touche … ". */
  moods: string[];
  mediaCategories: { packshot: string; mood: string; video: string; document: string };
  moodSuffix: string;
  documentSuffix: string;
}

const n = (text: string, gender: Gender, family: string): Noun => ({ text, gender, family });

const COMMON_ATTRIBUTES: AttributeSpec[] = [
  { code: "sku", label: "Référence (SKU)", type: "TEXT", unique: true },
  { code: "name", label: "Nom du produit", type: "TEXT", scopable: true },
  { code: "description", label: "Description", type: "TEXTAREA", scopable: true },
  { code: "short_description", label: "Accroche", type: "TEXTAREA", scopable: true },
  { code: "price", label: "Prix de vente", type: "PRICE" },
  { code: "promo_price", label: "Prix promotionnel", type: "PRICE", scopable: true },
  { code: "weight", label: "Poids (kg)", type: "NUMBER" },
  { code: "color", label: "Couleur", type: "SELECT" },
  { code: "material", label: "Matière principale", type: "SELECT" },
  { code: "ean", label: "Code EAN", type: "TEXT", unique: true },
  { code: "supplier_ref", label: "Référence fournisseur", type: "TEXT", unique: true },
  { code: "brand", label: "Marque", type: "TEXT" },
  { code: "seo_title", label: "Titre SEO", type: "TEXT", scopable: true },
  { code: "release_date", label: "Date de mise en vente", type: "DATE" },
  { code: "made_in_france", label: "Fabriqué en France", type: "BOOLEAN" },
  { code: "main_image", label: "Visuel principal", type: "MEDIA" },
  { code: "care", label: "Conseils d'entretien", type: "TEXTAREA" },
];

const COMMON: Flavour["common"] = [
  ["sku", true],
  ["name", true],
  ["description", false],
  ["short_description", false],
  ["price", true],
  ["promo_price", false],
  ["weight", false],
  ["color", true],
  ["material", false],
  ["ean", false],
  ["brand", false],
  ["seo_title", false],
  ["main_image", false],
];

// Maison, mobilier et décoration (organization "acme").
export const HOME: Flavour = {
  brand: "Acme Maison",
  channels: [
    { code: "ecommerce", label: "Site e-commerce" },
    { code: "marketplace", label: "Marketplace partenaires" },
    { code: "print", label: "Catalogue papier" },
  ],
  masterRoot: "Maison & décoration",
  branches: [
    {
      label: "Mobilier",
      leaves: [
        {
          label: "Chaises & tabourets",
          nouns: [n("Chaise", "f", "assises"), n("Tabouret", "m", "assises"), n("Banc", "m", "assises")],
        },
        {
          label: "Tables",
          nouns: [
            n("Table à manger", "f", "tables"),
            n("Table basse", "f", "tables"),
            n("Console", "f", "tables"),
            n("Guéridon", "m", "tables"),
          ],
        },
        {
          label: "Canapés & fauteuils",
          nouns: [n("Canapé", "m", "canapes"), n("Fauteuil", "m", "canapes"), n("Pouf", "m", "canapes")],
        },
        {
          label: "Rangements",
          nouns: [
            n("Buffet", "m", "rangements"),
            n("Étagère", "f", "rangements"),
            n("Commode", "f", "rangements"),
            n("Bibliothèque", "f", "rangements"),
          ],
        },
        {
          label: "Lits & chevets",
          nouns: [
            n("Lit", "m", "lits"),
            n("Tête de lit", "f", "lits"),
            n("Table de chevet", "f", "rangements"),
          ],
        },
        {
          label: "Bureaux",
          nouns: [
            n("Bureau", "m", "bureaux"),
            n("Secrétaire", "m", "bureaux"),
            n("Chaise de bureau", "f", "assises"),
          ],
        },
      ],
    },
    {
      label: "Décoration",
      leaves: [
        { label: "Miroirs", nouns: [n("Miroir", "m", "miroirs"), n("Miroir soleil", "m", "miroirs")] },
        {
          label: "Vases & cache-pots",
          nouns: [n("Vase", "m", "vases"), n("Cache-pot", "m", "vases"), n("Soliflore", "m", "vases")],
        },
        { label: "Cadres & affiches", nouns: [n("Cadre photo", "m", "cadres"), n("Affiche", "f", "cadres")] },
        {
          label: "Bougies & senteurs",
          nouns: [n("Bougie parfumée", "f", "bougies"), n("Diffuseur", "m", "bougies")],
        },
        { label: "Tapis", nouns: [n("Tapis", "m", "tapis"), n("Tapis de couloir", "m", "tapis")] },
      ],
    },
    {
      label: "Luminaires",
      leaves: [
        {
          label: "Lampes à poser",
          nouns: [n("Lampe à poser", "f", "luminaires"), n("Lampe de chevet", "f", "luminaires")],
        },
        { label: "Suspensions", nouns: [n("Suspension", "f", "luminaires"), n("Lustre", "m", "luminaires")] },
        {
          label: "Lampadaires",
          nouns: [n("Lampadaire", "m", "luminaires"), n("Liseuse", "f", "luminaires")],
        },
      ],
    },
    {
      label: "Linge de maison",
      leaves: [
        { label: "Coussins & plaids", nouns: [n("Coussin", "m", "textiles"), n("Plaid", "m", "textiles")] },
        {
          label: "Linge de lit",
          nouns: [
            n("Housse de couette", "f", "linge_lit"),
            n("Parure de lit", "f", "linge_lit"),
            n("Drap housse", "m", "linge_lit"),
          ],
        },
        { label: "Rideaux & voilages", nouns: [n("Rideau", "m", "textiles"), n("Voilage", "m", "textiles")] },
      ],
    },
    {
      label: "Cuisine & arts de la table",
      leaves: [
        {
          label: "Vaisselle",
          nouns: [
            n("Assiette", "f", "arts_table"),
            n("Bol", "m", "arts_table"),
            n("Tasse", "f", "arts_table"),
          ],
        },
        {
          label: "Verres & carafes",
          nouns: [n("Carafe", "f", "arts_table"), n("Verre à vin", "m", "arts_table")],
        },
        {
          label: "Ustensiles",
          nouns: [
            n("Planche à découper", "f", "cuisine"),
            n("Saladier", "m", "cuisine"),
            n("Théière", "f", "cuisine"),
          ],
        },
      ],
    },
    {
      label: "Extérieur",
      leaves: [
        {
          label: "Mobilier de jardin",
          nouns: [
            n("Salon de jardin", "m", "jardin"),
            n("Transat", "m", "jardin"),
            n("Hamac", "m", "jardin"),
          ],
        },
        {
          label: "Pots & jardinières",
          nouns: [n("Jardinière", "f", "jardin"), n("Pot de fleurs", "m", "jardin")],
        },
      ],
    },
  ],
  secondary: [
    { label: "Soldes d'hiver", children: ["Jusqu'à -30 %", "Jusqu'à -50 %", "Dernière démarque"] },
    { label: "Nouveautés", children: ["Printemps 2026", "Été 2026"] },
    { label: "Idées cadeaux", children: ["Moins de 30 €", "Pour la crémaillère"] },
  ],
  families: [
    {
      code: "assises",
      label: "Chaises & assises",
      price: [39, 349],
      weight: [20, 120],
      extra: ["width", "height", "depth", "assembly_required"],
    },
    {
      code: "tables",
      label: "Tables",
      price: [89, 1290],
      weight: [80, 600],
      extra: ["width", "height", "depth", "seats", "assembly_required"],
    },
    {
      code: "canapes",
      label: "Canapés & fauteuils",
      price: [199, 2490],
      weight: [150, 900],
      extra: ["width", "height", "depth", "seats", "style"],
    },
    {
      code: "rangements",
      label: "Rangements",
      price: [59, 1490],
      weight: [60, 700],
      extra: ["width", "height", "depth", "assembly_required"],
    },
    {
      code: "lits",
      label: "Lits",
      price: [149, 1890],
      weight: [200, 900],
      extra: ["width", "height", "depth", "assembly_required"],
    },
    {
      code: "bureaux",
      label: "Bureaux",
      price: [129, 990],
      weight: [100, 500],
      extra: ["width", "height", "depth", "assembly_required"],
    },
    {
      code: "miroirs",
      label: "Miroirs",
      price: [29, 490],
      weight: [10, 200],
      extra: ["width", "height", "style"],
    },
    {
      code: "vases",
      label: "Vases & cache-pots",
      price: [9, 129],
      weight: [3, 60],
      extra: ["height", "outdoor_use"],
    },
    {
      code: "cadres",
      label: "Cadres & affiches",
      price: [7, 149],
      weight: [2, 30],
      extra: ["width", "height"],
    },
    {
      code: "bougies",
      label: "Bougies & senteurs",
      price: [6, 59],
      weight: [2, 15],
      extra: ["burn_time", "fragrance"],
    },
    {
      code: "tapis",
      label: "Tapis",
      price: [39, 890],
      weight: [20, 300],
      extra: ["width", "depth", "outdoor_use"],
    },
    {
      code: "luminaires",
      label: "Luminaires",
      price: [25, 690],
      weight: [10, 150],
      extra: ["height", "bulb", "style"],
    },
    {
      code: "textiles",
      label: "Textiles de décoration",
      price: [12, 189],
      weight: [3, 40],
      extra: ["width", "height"],
    },
    { code: "linge_lit", label: "Linge de lit", price: [25, 259], weight: [5, 40], extra: ["bed_size"] },
    {
      code: "arts_table",
      label: "Arts de la table",
      price: [4, 89],
      weight: [2, 30],
      extra: ["dishwasher_safe", "sold_by"],
    },
    {
      code: "cuisine",
      label: "Ustensiles de cuisine",
      price: [8, 99],
      weight: [2, 40],
      extra: ["dishwasher_safe"],
    },
    {
      code: "jardin",
      label: "Jardin & extérieur",
      price: [29, 1590],
      weight: [30, 900],
      extra: ["width", "height", "depth", "outdoor_use"],
    },
  ],
  attributes: [
    ...COMMON_ATTRIBUTES,
    { code: "width", label: "Largeur (cm)", type: "NUMBER" },
    { code: "height", label: "Hauteur (cm)", type: "NUMBER" },
    { code: "depth", label: "Profondeur (cm)", type: "NUMBER" },
    { code: "seats", label: "Nombre de places", type: "NUMBER" },
    { code: "assembly_required", label: "Montage nécessaire", type: "BOOLEAN" },
    { code: "outdoor_use", label: "Usage extérieur", type: "BOOLEAN" },
    { code: "style", label: "Style", type: "SELECT" },
    { code: "burn_time", label: "Durée de combustion (h)", type: "NUMBER" },
    { code: "fragrance", label: "Senteur", type: "MULTI_SELECT" },
    { code: "bulb", label: "Type d'ampoule", type: "SELECT" },
    { code: "bed_size", label: "Dimensions du lit", type: "SELECT" },
    { code: "dishwasher_safe", label: "Passe au lave-vaisselle", type: "BOOLEAN" },
    { code: "sold_by", label: "Vendu par lot de", type: "NUMBER" },
  ],
  common: COMMON,
  adjectives: [
    ["scandinave", "scandinave"],
    ["rétro", "rétro"],
    ["bohème", "bohème"],
    ["industriel", "industrielle"],
    ["élégant", "élégante"],
    ["rustique", "rustique"],
    ["contemporain", "contemporaine"],
    ["épuré", "épurée"],
    ["vintage", "vintage"],
    ["artisanal", "artisanale"],
    ["arrondi", "arrondie"],
    ["tressé", "tressée"],
    ["champêtre", "champêtre"],
    ["minimaliste", "minimaliste"],
    ["Art déco", "Art déco"],
    ["méditerranéen", "méditerranéenne"],
    ["léger", "légère"],
    ["côtelé", "côtelée"],
  ],
  materials: [
    "chêne massif",
    "hêtre",
    "noyer",
    "rotin",
    "bambou",
    "métal noir",
    "laiton",
    "velours",
    "lin lavé",
    "coton bio",
    "céramique",
    "grès émaillé",
    "verre soufflé",
    "marbre",
    "jute",
    "laine bouclée",
    "terre cuite",
    "teck recyclé",
    "acacia",
    "frêne",
  ],
  colors: [
    "Blanc cassé",
    "Crème",
    "Écru",
    "Gris perle",
    "Anthracite",
    "Bleu pétrole",
    "Vert sauge",
    "Vert forêt",
    "Terracotta",
    "Rouille",
    "Jaune moutarde",
    "Rose poudré",
    "Beige sablé",
    "Taupe",
    "Noir mat",
    "Naturel",
    "Caramel",
    "Bleu nuit",
    "Ocre",
    "Lie-de-vin",
  ],
  options: {
    style: [
      "Scandinave",
      "Industriel",
      "Bohème",
      "Contemporain",
      "Classique",
      "Vintage",
      "Art déco",
      "Champêtre",
      "Minimaliste",
    ],
    fragrance: [
      "Vanille",
      "Fleur de coton",
      "Figuier",
      "Bois de santal",
      "Lavande",
      "Fleur d'oranger",
      "Ambre",
      "Citron vert",
      "Cèdre",
      "Jasmin",
      "Thé vert",
      "Menthe poivrée",
    ],
    bulb: ["E27", "E14", "GU10", "G9", "LED intégrée"],
    bed_size: ["90 × 190 cm", "140 × 190 cm", "160 × 200 cm", "180 × 200 cm"],
  },
  moods: [
    "chaleureuse",
    "naturelle",
    "raffinée",
    "douce",
    "lumineuse",
    "authentique",
    "graphique",
    "apaisante",
  ],
  mediaCategories: {
    packshot: "Packshot",
    mood: "Ambiance",
    video: "Vidéo produit",
    document: "Fiche technique",
  },
  moodSuffix: "ambiance séjour",
  documentSuffix: "fiche technique",
};

// Mode et sport (organization "globex").
export const FASHION: Flavour = {
  brand: "Globex Sport & Style",
  channels: [
    { code: "ecommerce", label: "Boutique en ligne" },
    { code: "marketplace", label: "Marketplaces" },
    { code: "retail", label: "Magasins" },
  ],
  masterRoot: "Mode & sport",
  branches: [
    {
      label: "Femme",
      leaves: [
        {
          label: "Robes & combinaisons",
          nouns: [n("Robe", "f", "robes"), n("Robe longue", "f", "robes"), n("Combinaison", "f", "robes")],
        },
        {
          label: "Tops & t-shirts",
          nouns: [n("Blouse", "f", "hauts"), n("Top", "m", "hauts"), n("Débardeur", "m", "hauts")],
        },
        {
          label: "Pantalons & jupes",
          nouns: [n("Pantalon large", "m", "bas"), n("Jupe", "f", "bas"), n("Jean droit", "m", "bas")],
        },
        {
          label: "Vestes & manteaux",
          nouns: [
            n("Trench", "m", "manteaux"),
            n("Manteau", "m", "manteaux"),
            n("Veste", "f", "manteaux"),
            n("Doudoune", "f", "manteaux"),
          ],
        },
      ],
    },
    {
      label: "Homme",
      leaves: [
        { label: "Chemises", nouns: [n("Chemise", "f", "chemises"), n("Surchemise", "f", "chemises")] },
        { label: "T-shirts & polos", nouns: [n("Polo", "m", "hauts"), n("T-shirt", "m", "hauts")] },
        {
          label: "Pantalons & jeans",
          nouns: [n("Chino", "m", "bas"), n("Jean", "m", "bas"), n("Bermuda", "m", "bas")],
        },
        {
          label: "Pulls & sweats",
          nouns: [
            n("Pull", "m", "mailles"),
            n("Sweat à capuche", "m", "mailles"),
            n("Cardigan", "m", "mailles"),
          ],
        },
      ],
    },
    {
      label: "Chaussures",
      leaves: [
        {
          label: "Baskets",
          nouns: [n("Basket", "f", "chaussures"), n("Basket montante", "f", "chaussures")],
        },
        {
          label: "Bottines & mocassins",
          nouns: [n("Bottine", "f", "chaussures"), n("Mocassin", "m", "chaussures")],
        },
        {
          label: "Sandales & espadrilles",
          nouns: [n("Sandale", "f", "chaussures"), n("Espadrille", "f", "chaussures")],
        },
      ],
    },
    {
      label: "Sport",
      leaves: [
        {
          label: "Running",
          nouns: [
            n("Chaussure de running", "f", "running"),
            n("Short de running", "m", "running"),
            n("Veste coupe-vent", "f", "running"),
          ],
        },
        {
          label: "Fitness & yoga",
          nouns: [
            n("Legging", "m", "fitness"),
            n("Brassière", "f", "fitness"),
            n("Tapis de yoga", "m", "fitness"),
          ],
        },
        {
          label: "Randonnée",
          nouns: [
            n("Chaussure de randonnée", "f", "outdoor"),
            n("Sac à dos", "m", "outdoor"),
            n("Polaire", "f", "outdoor"),
          ],
        },
        {
          label: "Natation",
          nouns: [n("Maillot de bain", "m", "natation"), n("Bonnet de bain", "m", "natation")],
        },
      ],
    },
    {
      label: "Accessoires",
      leaves: [
        {
          label: "Sacs & pochettes",
          nouns: [
            n("Sac cabas", "m", "maroquinerie"),
            n("Sac bandoulière", "m", "maroquinerie"),
            n("Pochette", "f", "maroquinerie"),
          ],
        },
        {
          label: "Écharpes & bonnets",
          nouns: [
            n("Écharpe", "f", "accessoires"),
            n("Bonnet", "m", "accessoires"),
            n("Foulard", "m", "accessoires"),
          ],
        },
        { label: "Ceintures", nouns: [n("Ceinture", "f", "maroquinerie")] },
      ],
    },
  ],
  secondary: [
    { label: "Soldes d'hiver", children: ["Jusqu'à -40 %", "Dernières tailles"] },
    { label: "Nouveautés", children: ["Collection été", "Capsule rentrée"] },
    { label: "Sélection éco-responsable", children: ["Matières recyclées", "Fabriqué en Europe"] },
  ],
  families: [
    {
      code: "robes",
      label: "Robes",
      price: [29, 189],
      weight: [2, 8],
      extra: ["size", "gender", "season", "fit"],
    },
    {
      code: "hauts",
      label: "Hauts & t-shirts",
      price: [12, 89],
      weight: [1, 4],
      extra: ["size", "gender", "fit", "season"],
    },
    {
      code: "bas",
      label: "Pantalons, jeans & jupes",
      price: [25, 149],
      weight: [3, 9],
      extra: ["size", "gender", "fit", "inseam"],
    },
    {
      code: "manteaux",
      label: "Vestes & manteaux",
      price: [59, 449],
      weight: [6, 25],
      extra: ["size", "gender", "season", "waterproof"],
    },
    {
      code: "chemises",
      label: "Chemises",
      price: [29, 119],
      weight: [2, 5],
      extra: ["size", "gender", "fit"],
    },
    {
      code: "mailles",
      label: "Mailles & sweats",
      price: [29, 159],
      weight: [3, 10],
      extra: ["size", "gender", "season"],
    },
    {
      code: "chaussures",
      label: "Chaussures",
      price: [39, 229],
      weight: [5, 15],
      extra: ["shoe_size", "gender", "waterproof"],
    },
    {
      code: "running",
      label: "Running",
      price: [19, 179],
      weight: [1, 10],
      extra: ["size", "sport", "waterproof", "breathable"],
    },
    {
      code: "fitness",
      label: "Fitness & yoga",
      price: [14, 89],
      weight: [1, 20],
      extra: ["size", "sport", "breathable"],
    },
    {
      code: "outdoor",
      label: "Randonnée & outdoor",
      price: [24, 259],
      weight: [3, 18],
      extra: ["size", "sport", "waterproof", "capacity"],
    },
    {
      code: "natation",
      label: "Natation",
      price: [9, 69],
      weight: [1, 3],
      extra: ["size", "sport", "gender"],
    },
    {
      code: "maroquinerie",
      label: "Maroquinerie",
      price: [19, 299],
      weight: [2, 15],
      extra: ["capacity", "gender"],
    },
    {
      code: "accessoires",
      label: "Accessoires",
      price: [9, 79],
      weight: [1, 4],
      extra: ["season", "gender"],
    },
  ],
  attributes: [
    ...COMMON_ATTRIBUTES,
    { code: "size", label: "Tailles disponibles", type: "MULTI_SELECT" },
    { code: "shoe_size", label: "Pointures disponibles", type: "MULTI_SELECT" },
    { code: "gender", label: "Genre", type: "SELECT" },
    { code: "season", label: "Saison", type: "SELECT" },
    { code: "fit", label: "Coupe", type: "SELECT" },
    { code: "inseam", label: "Longueur d'entrejambe (cm)", type: "NUMBER" },
    { code: "waterproof", label: "Imperméable", type: "BOOLEAN" },
    { code: "breathable", label: "Respirant", type: "BOOLEAN" },
    { code: "sport", label: "Sport pratiqué", type: "SELECT" },
    { code: "capacity", label: "Contenance (L)", type: "NUMBER" },
  ],
  common: COMMON,
  adjectives: [
    ["ajusté", "ajustée"],
    ["oversize", "oversize"],
    ["fluide", "fluide"],
    ["côtelé", "côtelée"],
    ["imperméable", "imperméable"],
    ["respirant", "respirante"],
    ["léger", "légère"],
    ["chaud", "chaude"],
    ["brodé", "brodée"],
    ["rayé", "rayée"],
    ["fleuri", "fleurie"],
    ["matelassé", "matelassée"],
    ["technique", "technique"],
    ["écoresponsable", "écoresponsable"],
    ["délavé", "délavée"],
    ["sportif", "sportive"],
    ["décontracté", "décontractée"],
    ["réversible", "réversible"],
  ],
  materials: [
    "coton bio",
    "lin",
    "laine mérinos",
    "cachemire",
    "soie",
    "denim",
    "cuir végétal",
    "cuir grainé",
    "polyester recyclé",
    "viscose",
    "velours côtelé",
    "jersey",
    "néoprène",
    "nylon ripstop",
    "polaire recyclée",
    "toile de coton",
  ],
  colors: [
    "Bleu marine",
    "Kaki",
    "Bordeaux",
    "Écru",
    "Crème",
    "Noir",
    "Blanc",
    "Gris chiné",
    "Camel",
    "Rose pâle",
    "Vert émeraude",
    "Jaune citron",
    "Corail",
    "Denim brut",
    "Terracotta",
    "Bleu électrique",
  ],
  options: {
    size: ["XXS", "XS", "S", "M", "L", "XL", "XXL", "3XL"],
    shoe_size: ["35", "36", "37", "38", "39", "40", "41", "42", "43", "44", "45", "46"],
    gender: ["Femme", "Homme", "Mixte", "Enfant"],
    season: ["Printemps-été", "Automne-hiver", "Toutes saisons"],
    fit: ["Ajustée", "Droite", "Ample", "Oversize", "Évasée", "Cintrée"],
    sport: ["Running", "Trail", "Randonnée", "Yoga", "Fitness", "Natation", "Cyclisme", "Tennis"],
  },
  moods: ["décontractée", "sportive", "élégante", "urbaine", "estivale", "chic", "vitaminée", "intemporelle"],
  mediaCategories: {
    packshot: "Packshot",
    mood: "Photo portée",
    video: "Vidéo produit",
    document: "Guide des tailles",
  },
  moodSuffix: "photo portée",
  documentSuffix: "guide des tailles",
};

// The flavours by name.
export const FLAVOURS = { home: HOME, fashion: FASHION } as const;
// A flavour name.
export type FlavourName = keyof typeof FLAVOURS;
