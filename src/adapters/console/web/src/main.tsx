/**
 * The console: sign-in, then the pages a role may use — holds, refusals,
 * approvals, rules — picked by the URL's fragment (#/holds, #/refusals,
 * #/approvals, #/rules), which never carries the token.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.js';
import { ApprovalsPage } from './approvals.js';
import { HealthBanner } from './banner.js';
import { HoldsPage } from './holds.js';
import { RefusalsPage } from './refusals.js';
import { RulesPage } from './rules.js';
import { CONSOLE_ROLES, forgetToken, savedToken, type Principal } from './session.js';
import { SignIn } from './signin.js';
import { Busy } from './ui.js';
import './styles.css';

const PAGES = [['holds', 'Holds'], ['refusals', 'Refusals'], ['approvals', 'Approvals'], ['rules', 'Rules']] as const;
type Page = (typeof PAGES)[number][0];

/**
 * The pages a role may use, the first shown by default: the rules are the
 * operator's (a reviewer's token may not read them); an approver's token
 * reads and answers the approvals only.
 */
const PAGES_OF: Record<string, readonly Page[]> = {
  operator: ['holds', 'refusals', 'approvals', 'rules'],
  reviewer: ['holds', 'refusals', 'approvals'],
  approver: ['approvals'],
};

function pageFromHash(): Page {
  const h = location.hash.replace(/^#\/?/, '').split('?')[0];
  return (PAGES.find(([p]) => p === h)?.[0]) ?? 'holds';
}

function App() {
  const [me, setMe] = useState<Principal | null | undefined>(savedToken() ? undefined : null);
  const [page, setPage] = useState<Page>(pageFromHash());

  useEffect(() => {
    const on = (): void => setPage(pageFromHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);

  useEffect(() => {
    if (me !== undefined) return;
    get<Principal>('/v1/whoami').then((p) => {
      if (CONSOLE_ROLES.includes(p.role)) setMe(p);
      else { forgetToken(); setMe(null); }
    }, (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) forgetToken();
      setMe(null);
    });
  }, [me]);

  useEffect(() => {
    document.title = me ? `${PAGES.find(([p]) => p === page)?.[1]} · plangate console` : 'Sign in · plangate console';
  }, [me, page]);

  if (me === undefined) return <Busy label="Restoring your session" />;
  if (me === null) return <SignIn onSignedIn={setMe} />;
  const mine = PAGES_OF[me.role] ?? [];
  const shown: Page = mine.includes(page) ? page : mine[0] ?? 'holds';

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to the page</a>
      <header class="top">
        <span class="brand">plangate</span>
        <nav aria-label="Pages">
          {PAGES.filter(([p]) => mine.includes(p)).map(([p, label]) => (
            <a key={p} href={`#/${p}`} aria-current={p === shown ? 'page' : undefined}>{label}</a>
          ))}
        </nav>
        <span class="me">{me.name} <span class="tag">{me.role}</span></span>
        <button type="button" class="link" onClick={() => { forgetToken(); setMe(null); }}>Sign out</button>
      </header>
      <HealthBanner />
      {shown === 'holds' && <HoldsPage me={me} />}
      {shown === 'refusals' && <RefusalsPage />}
      {shown === 'approvals' && <ApprovalsPage />}
      {shown === 'rules' && <RulesPage />}
    </>
  );
}

const root = document.getElementById('app') as HTMLElement;
root.replaceChildren();
render(<App />, root);
