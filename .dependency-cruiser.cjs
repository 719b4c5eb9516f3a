// Import rules of the layers (run by `npm run lint:deps`, first step of `npm test`).
//
//   schemas/  public HTTP contract: a leaf
//   core/     shared kernel (config, db, observability, normalisation, tenant scope, webhook plumbing)
//   streams/  NATS JetStream: subjects, envelopes, topology, the ingress publisher
//   actors/   the worker: one folder per family, plus runtime/ (the actor machinery) and shared/ (what several
//             families use)
//   src/      the ingress (HTTP), the CLI and the composition root src/app/
//
// Paths are relative to the repository root (depcruise runs from there).

/** Our own top-level folders: anything a rule calls "ours". */
const OURS = "^(core|src|actors|streams|schemas|test|bin|infra)/"

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "A cycle means two modules cannot be understood, tested or moved apart; every layer rule below assumes an " +
        "acyclic graph. Type-only imports count too: a type cycle is still a design cycle.",
      from: {},
      to: { circular: true }
    },
    {
      name: "schemas-is-a-leaf",
      severity: "error",
      comment:
        "schemas/ is the public HTTP contract (and the OpenAPI document generated from it): it must describe the API " +
        "without depending on how the platform implements it.",
      from: { path: "^schemas/" },
      to: { path: OURS, pathNot: "^schemas/" }
    },
    {
      name: "core-is-the-kernel",
      severity: "error",
      comment:
        "core/ is what the ingress, the streams and the actors all stand on (config, database, logging, metrics, " +
        "normalisation, tenant scope, webhook plumbing); it may use the contract (schemas/) but nothing built on it, " +
        "or the layers would import each other through it.",
      from: { path: "^core/" },
      to: { path: OURS, pathNot: "^(core|schemas)/" }
    },
    {
      name: "streams-below-ingress-and-actors",
      severity: "error",
      comment:
        "streams/ is the transport both the ingress and the worker use; it knows the kernel and the contract, " +
        "never either of its users.",
      from: { path: "^streams/" },
      to: { path: OURS, pathNot: "^(streams|core|schemas)/" }
    },
    {
      name: "actors-never-import-src",
      severity: "error",
      comment:
        "The worker must run (and be reasoned about) without the ingress: what both need lives in core/ or streams/.",
      from: { path: "^actors/" },
      to: { path: "^src/" }
    },
    {
      name: "src-uses-actor-contracts-only",
      severity: "error",
      comment:
        "The ingress talks to actors through messages: it may import an actor family's protocol " +
        "(protocol.ts: message payload, success and error schemas), never its logic or storage. Only the composition root src/app/ " +
        "wires the worker in.",
      from: { path: "^src/", pathNot: "^src/app/" },
      to: { path: "^actors/", pathNot: "^actors/[^/]+/protocol\\.ts$" }
    },
    {
      name: "actor-families-meet-through-contracts",
      severity: "error",
      comment:
        "An actor family (actors/<family>/) owns its state and storage; another family may use only its protocol " +
        "(protocol.ts). What several families share goes to actors/shared/; the " +
        "machinery is actors/runtime/ (neither is a family).",
      from: { path: "^actors/([^/]+)/", pathNot: "^actors/(runtime|shared)/" },
      to: {
        path: "^actors/[^/]+/",
        pathNot: ["^actors/$1/", "^actors/(runtime|shared)/", "^actors/[^/]+/protocol\\.ts$"]
      }
    },
    {
      name: "actors-shared-stays-below-families",
      severity: "error",
      comment:
        "actors/shared/ is used by several families, so it must not depend on any one of them beyond its protocol " +
        "(protocol.ts: the message types), or the families would depend on each other through it.",
      from: { path: "^actors/shared/" },
      to: { path: "^actors/", pathNot: ["^actors/(shared|runtime)/", "^actors/[^/]+/protocol\\.ts$"] }
    },
    {
      name: "console-web-is-a-browser-island",
      severity: "error",
      comment:
        "src/console/web/ runs in the staff's browser, bundled by src/console/bundle.ts: it reaches the platform through " +
        "the public API only (its types generated from /openapi.json), never by importing server code, which would " +
        "ship server internals to the browser and give the console a private way in.",
      from: { path: "^src/console/web/" },
      to: { path: OURS, pathNot: "^src/console/web/" }
    },
    {
      name: "no-test-code-in-the-product",
      severity: "error",
      comment: "Production modules never import the test suite or its helpers (test/ is not shipped: see .dockerignore).",
      from: { pathNot: "^test/" },
      to: { path: "^test/" }
    },
    {
      name: "no-dev-dependencies-in-the-product",
      severity: "error",
      comment:
        "The image installs with --omit=dev: a devDependency (vitest, @effect/vitest, fast-check, ...) imported " +
        "outside test/ would work in tests and crash in production. The one exception, src/cli/mailCatcher.ts, loads " +
        "maildev (the local mail catcher of `gep start`) only when it is installed and starts without it otherwise.",
      from: { path: "^(core|src|actors|streams|schemas)/", pathNot: "^src/cli/mailCatcher\\.ts$" },
      to: { dependencyTypes: ["npm-dev"] }
    },
    {
      name: "no-unresolvable",
      severity: "error",
      comment: "An import that resolves to nothing is a broken path (e.g. after a move) or a missing dependency.",
      from: {},
      to: { couldNotResolve: true }
    }
  ],
  options: {
    // TypeScript 7 ships no JavaScript compiler API, which dependency-cruiser's "tsc" parser needs (it supports
    // typescript < 7). swc parses TypeScript syntax itself and reports every import and export-from, type-only ones
    // included, so type cycles are caught as well. (Not seen: inline type queries such as
    // `import("./x.ts").Type`; write them as `import type` to have them checked.)
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    moduleSystems: ["es6", "cjs"],
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".d.ts", ".json"]
    },
    reporterOptions: {
      text: { highlightFocused: true }
    }
  }
}
