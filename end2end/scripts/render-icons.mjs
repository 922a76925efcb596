// Renders the app icons' PNG twins (assets/icons/*.png) from their SVGs in
// Debian's Chromium: installable web apps want PNGs at 192 and 512 px.
// Run from end2end/: node scripts/render-icons.mjs
import { chromium } from "@playwright/test";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const icons = fileURLToPath(new URL("../../assets/icons/", import.meta.url));
const renders = [
  ["icon.svg", "icon-192.png", 192],
  ["icon.svg", "icon-512.png", 512],
  ["icon-maskable.svg", "icon-maskable-192.png", 192],
  ["icon-maskable.svg", "icon-maskable-512.png", 512],
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
try {
  for (const [svg, png, size] of renders) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const source = readFileSync(icons + svg, "utf8").replace("<svg ", `<svg width="${size}" height="${size}" `);
    await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block}</style>${source}`);
    await page.screenshot({ path: icons + png, omitBackground: true });
    await page.close();
  }
} finally {
  await browser.close();
}
