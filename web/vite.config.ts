/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The build is served by Keeper at / (keeper.web.dist, docs/web.md). `npm run dev` proxies the
// API and the runtime configuration to a Keeper on 127.0.0.1:8080.
export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", sourcemap: false, chunkSizeWarningLimit: 600 },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:8080",
      "/web-config.json": "http://127.0.0.1:8080",
    },
  },
  // css: the contrast test reads styles.css?raw, which vitest would otherwise empty.
  test: { environment: "jsdom", include: ["src/**/*.test.{ts,tsx}"], css: true },
});
