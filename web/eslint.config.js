// ESLint for the web app (`npm run lint` runs it with `prettier --check`; `make lint` runs both).
// typescript-eslint's type-aware recommended rules (the project service reads tsconfig.json),
// React's rules of hooks (with the React Compiler's checks of version 7) and react-refresh's
// check that a module exporting components exports only components, so Vite's hot reload keeps
// their state. Formatting is Prettier's alone (.prettierrc); no rule here concerns layout.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import reactRefresh from "eslint-plugin-react-refresh";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  // schema.d.ts is generated from openapi.json (`npm run api`).
  globalIgnores(["dist/", "src/api/schema.d.ts"]),
  {
    files: ["**/*.{ts,tsx}"],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommendedTypeChecked,
      reactHooks.configs.flat.recommended,
      reactRefresh.configs.vite,
    ],
    languageOptions: {
      ecmaVersion: 2022,
      globals: globals.browser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Unused names are tsc's to report (noUnusedLocals, noUnusedParameters), once.
      "@typescript-eslint/no-unused-vars": "off",
    },
  },
  {
    files: ["eslint.config.js"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
);
