import css from './styles.css';

// A constructed stylesheet is not an inline <style>: a host page whose CSP has no
// 'unsafe-inline' in style-src still applies it (CSP governs <style> elements, style
// attributes and fetched sheets, not CSSStyleSheet objects). Old browsers without
// adoptedStyleSheets get a <style> element, which such a CSP would block.
export function mountStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = css;
    (root as ShadowRoot).appendChild(style);
  }
}
