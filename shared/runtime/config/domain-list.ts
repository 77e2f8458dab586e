import { z } from 'zod';

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** `example.com, @ops.example.org.` → `['example.com', 'ops.example.org']`; empty: no list. */
export const domainList = z.string().default('').transform((s, ctx) => {
  const domains = s.split(',').map((d) => d.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '')).filter(Boolean);
  for (const d of domains) if (!DOMAIN.test(d)) ctx.addIssue({ code: 'custom', message: `"${d}" is not a domain such as example.com` });
  return domains;
});
