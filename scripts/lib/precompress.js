// Writes FILE.br next to each FILE at brotli's best quality: the server
// sends these to browsers that accept br instead of compressing on the fly
// (tower-http's default quality is far weaker for the wasm bundle).
const zlib = require("zlib");
const fs = require("fs");
for (const file of process.argv.slice(2)) {
  const data = fs.readFileSync(file);
  const compressed = zlib.brotliCompressSync(data, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  fs.writeFileSync(`${file}.br`, compressed);
}
