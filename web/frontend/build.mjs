// Build the editor bundle the page loads: node build.mjs (or npm run build). The output is committed.
import { build } from "esbuild";

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
