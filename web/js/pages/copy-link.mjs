// "Copy link" next to each lesson section whose settings live in the URL (issue 12): the
// state restore works, but readers do not know the address bar holds it. The link is the
// page's address with that section's query keys (`s4.dk=…`) and its hash (#s4); opened, it
// shows the section as it is now. navigator.clipboard first, then a hidden textarea and
// execCommand('copy'); if both fail, the address bar gets the section's hash and the message
// says to copy it from there. The outcome is announced in a live region in the page language.
//
// Usage: addCopyLinks(['s2', 's4'], { t });   (after the sections mounted)
// Hooks: [data-testid=<id>-copy-link] (the button), [data-testid=<id>-copy-status] (its message).

/** The URL that reopens section `id` as it is now: its own query keys and #id. */
export function sectionUrl(id) {
  const sp = new URLSearchParams(location.search);
  const own = new URLSearchParams();
  for (const [k, v] of sp) if (k.startsWith(`${id}.`)) own.append(k, v);
  const q = own.toString();
  return `${location.origin}${location.pathname}${q ? `?${q}` : ''}#${id}`;
}

async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); return true; }
  } catch { /* permission refused or no focus: try the old way */ }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.className = 'visually-hidden';
  document.body.append(ta);
  ta.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  ta.remove();
  return ok;
}

export function addCopyLinks(ids, { t }) {
  for (const id of ids) {
    const section = document.getElementById(id);
    const h2 = section && section.querySelector('h2');
    if (!h2 || section.querySelector('.copy-link')) continue;
    const tools = document.createElement('div');
    tools.className = 'copy-link';
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.className = 'btn btn-small';
    btn.dataset.testid = `${id}-copy-link`;
    btn.textContent = t('site.copyLink');
    const status = document.createElement('span');
    status.className = 'copy-status';
    status.dataset.testid = `${id}-copy-status`;
    status.setAttribute('role', 'status');
    let clearTimer = null;
    btn.addEventListener('click', async () => {
      const link = sectionUrl(id);
      const ok = await copyText(link);
      if (!ok) {
        // the address bar then holds every setting and this section's place
        history.replaceState(history.state, '', `${location.pathname}${location.search}#${id}`);
        window.dispatchEvent(new HashChangeEvent('hashchange'));
      }
      status.textContent = t(ok ? 'site.linkCopied' : 'site.linkCopyFailed');
      clearTimeout(clearTimer);
      clearTimer = setTimeout(() => { status.textContent = ''; }, 8000);
    });
    tools.append(btn, status);
    h2.after(tools);
  }
}
