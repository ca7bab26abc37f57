// Each string in English and Simplified Chinese, side by side so a new one gets both. `{0}`
// marks an argument.
export const strings = {
  comments: ['{0} comments', '{0} 条评论'],
  comment1: ['1 comment', '1 条评论'],
  sortLabel: ['Sort comments', '评论排序'],
  sortNew: ['Newest', '最新'],
  sortOld: ['Oldest', '最早'],
  sortHot: ['Popular', '最热'],
  likePage: ['Like this page', '赞这个页面'],
  like: ['Like', '赞'],
  likes: ['{0} likes', '{0} 个赞'],
  reply: ['Reply', '回复'],
  edit: ['Edit', '编辑'],
  delete: ['Delete', '删除'],
  confirmDelete: ['Delete for good?', '确定删除？'],
  cancel: ['Cancel', '取消'],
  save: ['Save', '保存'],
  preview: ['Preview', '预览'],
  write: ['Write', '编辑'],
  markdownHint: ['Markdown: *italic*, **bold**, `code`, > quote, [link](https://…)',
                 '支持 Markdown：*斜体*、**粗体**、`代码`、> 引用、[链接](https://…)'],
  post: ['Post comment', '发表评论'],
  postReply: ['Post reply', '发表回复'],
  loadMore: ['Load more comments', '加载更多评论'],
  newComment1: ['1 new comment', '1 条新评论'],
  newComments: ['{0} new comments', '{0} 条新评论'],
  moreReplies: ['Show {0} more replies', '展开其余 {0} 条回复'],
  replyingTo: ['Replying to {0}', '回复 {0}'],
  deleted: ['This comment was deleted.', '该评论已删除。'],
  writeComment: ['Write a comment', '写下你的评论'],
  writeReply: ['Write a reply', '写下你的回复'],
  editComment: ['Edit your comment', '编辑你的评论'],
  signIn: ['Sign in', '登录'],
  signUp: ['Sign up', '注册'],
  signOut: ['Sign out', '退出'],
  signedInAs: ['Signed in as {0}', '已登录：{0}'],
  username: ['Username', '用户名'],
  password: ['Password', '密码'],
  displayName: ['Display name (optional)', '昵称（可选）'],
  signInToComment: ['Sign in to comment and like.', '登录后即可评论和点赞。'],
  guestOrSignIn: ['Comment as a guest, or sign in to like.', '可以游客身份评论，登录后可点赞。'],
  guestName: ['Your name', '你的名字'],
  guestEmail: ['E-mail (optional, never shown)', '邮箱（可选，不会公开）'],
  guestMark: ['guest', '游客'],
  signInWith: ['Sign in with {0}', '使用 {0} 登录'],
  signInClosed: ['Sign-in was not finished.', '登录未完成。'],
  errPopup: ['The sign-in window was blocked; allow pop-ups for this page.', '登录窗口被拦截，请允许此页面弹出窗口。'],
  errGuestName: ['Please give a name to comment as a guest.', '以游客身份评论请填写名字。'],
  noComments: ['No comments yet. Be the first!', '还没有评论，来抢沙发吧！'],
  loading: ['Loading comments…', '正在加载评论…'],
  posted: ['Your comment was posted.', '评论已发表。'],
  saved: ['Saved.', '已保存。'],
  removed: ['Comment deleted.', '评论已删除。'],
  signedIn: ['Welcome, {0}!', '欢迎，{0}！'],
  signedOut: ['You are signed out.', '你已退出登录。'],
  edited: ['(edited)', '（已编辑）'],
  errAuth: ['Please sign in to continue.', '请先登录。'],
  errBadLogin: ['Wrong username or password.', '用户名或密码错误。'],
  errForbidden: ['You are not allowed to do that.', '你没有权限这样做。'],
  errSite: ['This site may not use these comments.', '此网站不能使用这些评论。'],
  errRate: ['You are going a bit fast. Please try again in {0} seconds.', '操作太频繁了，请 {0} 秒后再试。'],
  errRateSoon: ['You are going a bit fast. Please try again shortly.', '操作太频繁了，请稍后再试。'],
  errUnavailable: ['Comments are temporarily unavailable. Please try again in a moment.', '评论服务暂时不可用，请稍后再试。'],
  errNetwork: ['Could not reach the comment server.', '无法连接评论服务器。'],
  errTaken: ['That username is taken.', '该用户名已被占用。'],
  errInvalid: ['Please check your input: {0}', '请检查输入：{0}'],
  errTooLarge: ['That is too long.', '内容太长了。'],
  errNotFound: ['That comment no longer exists.', '该评论已不存在。'],
  errOther: ['Something went wrong ({0}).', '出错了（{0}）。'],
  errEmpty: ['Please write something first.', '请先写点内容。'],
  errBanned: ['Your account is suspended from commenting.', '你的账号已被暂停评论。'],
  errDuplicate: ['You already posted this.', '你已经发过这条内容了。'],
  awaiting: ['Awaiting approval', '等待审核'],
  postedPending: ['Your comment was sent. It shows here once a moderator approves it.',
                  '评论已提交，审核通过后将公开显示。'],
  report: ['Report', '举报'],
  reported: ['Reported', '已举报'],
  reportedSay: ['Thanks. A moderator will look at it.', '谢谢，管理员会处理。'],
  honeypot: ['Leave this field empty', '此栏请留空'],
  comments_region: ['Comments', '评论'],
} satisfies Record<string, [string, string]>;
export type Lang = 'en' | 'zh-CN';
export type Key = keyof typeof strings;
export type T = (key: Key, ...args: (string | number)[]) => string;

// data-lang wins; then the host page's <html lang>, then the browser's language.
export function pickLang(explicit: string | null | undefined): Lang {
  const l = (explicit || document.documentElement.lang || navigator.language || 'en').toLowerCase();
  return l.startsWith('zh') ? 'zh-CN' : 'en';
}

// A translator over any table shaped like `strings` (the site's pages have their own, so the
// widget's bundle does not carry them).
export function tableTranslator<K extends string>(table: Record<K, [string, string]>, lang: Lang):
    (key: K, ...args: (string | number)[]) => string {
  const i = lang === 'zh-CN' ? 1 : 0;
  return (key, ...args) => table[key][i].replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)]));
}

export function translator(lang: Lang): T {
  return tableTranslator(strings, lang);
}

export function relativeTime(iso: string, lang: Lang, now = Date.now()): string {
  const s = Math.round((Date.parse(iso) - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' });
  const steps: [number, Intl.RelativeTimeFormatUnit][] =
    [[60, 'second'], [3600, 'minute'], [86400, 'hour'], [2592000, 'day'], [31536000, 'month']];
  let unit: Intl.RelativeTimeFormatUnit = 'year';
  let div = 31536000;
  for (let i = 0; i < steps.length; i++) {
    if (Math.abs(s) < steps[i][0]) { unit = steps[i][1]; div = i === 0 ? 1 : steps[i - 1][0]; break; }
  }
  return rtf.format(Math.round(s / div), unit);
}
