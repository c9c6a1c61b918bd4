// Build what the page loads: node build.mjs (or npm run build). The outputs are committed (CI needs no npm):
// the editor bundle, and Swagger UI's own bundle and style sheet for /docs (served by us, so it works offline).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

await build({
  entryPoints: ["editor.js"],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "eof",
  outfile: "../static/editor.js",
});
console.log("wrote ../static/editor.js");

mkdirSync("../static/swagger", { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"]) {
  copyFileSync(`node_modules/swagger-ui-dist/${file}`, `../static/swagger/${file}`);
}
console.log("wrote ../static/swagger/");
