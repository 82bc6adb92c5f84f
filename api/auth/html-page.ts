const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe to place in HTML content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

// The pages carry no script and load nothing; forms post only to this origin, and no other
// site may frame them (clickjacking).
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; }
main { width: min(22rem, calc(100vw - 2rem)); }
h1 { font-size: 1.4rem; }
label { display: block; margin: 0.8rem 0 0.3rem; }
input { box-sizing: border-box; width: 100%; padding: 0.5rem; font: inherit; }
button { margin-top: 1.2rem; padding: 0.5rem 1.2rem; font: inherit; }
.problem { padding: 0.6rem; border: 1px solid #c33; border-radius: 4px; }
`;

/** A small HTML page, answered with `status`; `content` is HTML already escaped by its maker. */
export interface HtmlAnswer {
  status: number;
  body: string;
  type: string;
  headers: Record<string, string>;
}

export function htmlPage(title: string, content: string, status = 200): HtmlAnswer {
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${content}</main></body>
</html>
`;
  return { status, body, type: 'text/html; charset=utf-8', headers: PAGE_HEADERS };
}

/** A 303 to a page of this site, so a form post is not repeated by a reload. */
export function seeOther(location: string): { status: number; headers: Record<string, string> } {
  // A header holds only visible ASCII: anything else in the path is percent-encoded.
  const ascii = location.replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char));
  return { status: 303, headers: { Location: ascii, 'Cache-Control': 'no-store' } };
}

/**
 * Where to send the user after signing in: a path of this site, or `/`. A full URL, a
 * scheme-relative `//host` or a backslash trick would make the sign-in page an open redirect.
 */
export function localPath(next: string | undefined): string {
  if (!next || next.length > 2048) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(next)) return '/';
  return next;
}
