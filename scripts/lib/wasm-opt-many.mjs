// Optimises wasm modules in place as `wasm-opt -Oz --enable-bulk-memory
// --enable-nontrapping-float-to-int` does, all in one process: npm's
// binaryen is a wasm program itself, and started once per module (the
// lazy routes' dozens of chunks) it spent more time compiling itself
// than optimising them.
import binaryen from "../tools/node_modules/binaryen/index.js";
import { readFileSync, writeFileSync } from "node:fs";

const F = binaryen.Features;
const features = F.MutableGlobals | F.SignExt | F.NontrappingFPToInt | F.BulkMemory | F.BulkMemoryOpt;
binaryen.setOptimizeLevel(2);
binaryen.setShrinkLevel(2);
for (const file of process.argv.slice(2)) {
  const module = binaryen.readBinary(readFileSync(file));
  module.setFeatures(features);
  module.optimize();
  if (!module.validate()) throw new Error(`${file}: invalid after optimising`);
  writeFileSync(file, module.emitBinary());
  module.dispose();
}
