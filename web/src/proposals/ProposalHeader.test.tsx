// @vitest-environment node
// Rendered to markup on the server renderer: the same escaping as the DOM renderer, and it runs
// where jsdom cannot start (jsdom 31's undici needs zlib zstd, which Node 20 lacks).
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { ProposalHeader } from "./ProposalHeader";
import { testProposal } from "./testProposal";

const IMG = "<img src=x onerror=alert(1)>";
const IMG_TEXT = "&lt;img src=x onerror=alert(1)&gt;";
const MARKDOWN = "[link](javascript:alert(1))";

describe("ProposalHeader", () => {
  it("shows a title, description and intent of markup as text, making no element of them", () => {
    const markup = renderToStaticMarkup(
      <ProposalHeader
        proposal={testProposal({
          title: IMG,
          description: `${MARKDOWN}\n\n${IMG}`,
          intent: MARKDOWN,
        })}
      />,
    );
    expect(markup).toContain(`<h1 class="plain">${IMG_TEXT}</h1>`);
    expect(markup).toContain(`<p class="plain lead">${MARKDOWN}\n\n${IMG_TEXT}</p>`);
    expect(markup).toContain(`<dd class="plain">${MARKDOWN}</dd>`);
    expect(markup).not.toMatch(/<(img|a)[\s>]/i);
    expect(markup).not.toMatch(/<[^>]*\s(href|onerror)=/i);
  });
});
