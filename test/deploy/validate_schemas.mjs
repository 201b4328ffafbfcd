// Validates rendered Kubernetes objects against the Kubernetes and Prometheus Operator schemas,
// offline, in two ways:
//  1. the JSON schemas of the npm packages kubernetes-models and
//     @kubernetes-models/prometheus-operator (types, enums, required fields, formats), and
//  2. strictly, as kubeconform -strict does: no field the schema does not know. The objects are
//     written as typed TypeScript literals (`const o: IDeployment = {...}`) and type-checked with
//     the TypeScript compiler, whose excess-property check refuses every unknown field at any
//     depth.
// An object whose apiVersion/kind has no schema is an error, never skipped.
//
// usage: node test/deploy/validate_schemas.mjs FILE.json...
//   each FILE.json holds a JSON list of objects (test/deploy/render_test.sh converts the
//   rendered YAML); the file's name is the label in messages.
// Exits 1 with one line per problem, naming the file, the object and the path.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ts = require("typescript");
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

// The module of an apiVersion: core v1 is "kubernetes-models/v1", a group's
// "kubernetes-models/GROUP/VERSION", the operator's CRDs from its own package.
function moduleOf(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "monitoring.coreos.com") {
    return `@kubernetes-models/prometheus-operator/${group}/${version}`;
  }
  return group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`;
}

const problems = [];
const typed = [];  // [label, module, kind, object]
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node test/deploy/validate_schemas.mjs FILE.json...");
  process.exit(2);
}
let count = 0;
for (const file of files) {
  const label = path.basename(file, ".json");
  const objects = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const object of objects) {
    const what = `${label}: ${object.kind}/${object.metadata?.name}`;
    count++;
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string") {
      problems.push(`${what}: no apiVersion or kind`);
      continue;
    }
    const module = moduleOf(object.apiVersion);
    let models;
    try {
      models = await import(module);
    } catch (e) {
      problems.push(`${what}: no schema for apiVersion ${object.apiVersion} (${module})`);
      continue;
    }
    const Model = models[object.kind];
    if (typeof Model !== "function") {
      problems.push(`${what}: ${module} has no kind ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (e) {
      problems.push(`${what}: ${e.message}`);
    }
    typed.push([what, module, object.kind, object]);
  }
}

// The strict check: one TypeScript file with every object as a literal of its interface.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "loadshift-schemas-"));
const source = path.join(dir, "objects.ts");
const lines = [];
const whatOfLine = [];
typed.forEach(([what, module, kind], i) => {
  lines.push(`import type { I${kind} as T${i} } from "${module}";`);
});
typed.forEach(([what, module, kind, object], i) => {
  const start = lines.length;
  lines.push(...`export const o${i}: T${i} = ${JSON.stringify(object, null, 1)};`.split("\n"));
  for (let l = start; l < lines.length; l++) whatOfLine[l] = what;
});
fs.writeFileSync(source, lines.join("\n") + "\n");
// The packages resolve from the checkout's node_modules (the file sits outside it).
fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
fs.writeFileSync(path.join(dir, "package.json"), '{"type": "module"}\n');
const checked = ts.createProgram([source], {
  strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [],
});
for (const d of ts.getPreEmitDiagnostics(checked)) {
  const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
  if (d.file && d.start !== undefined) {
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const at = d.file.getFullText().split("\n")[line].trim();
    problems.push(`${whatOfLine[line] ?? "objects.ts:" + (line + 1)}: ${text} (at ${at})`);
  } else {
    problems.push(`typescript: ${text}`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });

if (problems.length > 0) {
  for (const p of problems) console.error(`validate_schemas: ${p}`);
  console.error(`validate_schemas: ${problems.length} problem(s) in ${count} objects`);
  process.exit(1);
}
console.log(`validate_schemas: ${count} objects valid (schemas and no unknown fields) in ` +
  `${files.length} file(s)`);
