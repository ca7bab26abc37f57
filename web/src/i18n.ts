// The widget's strings in English and Simplified Chinese. `{0}` marks an argument.
const en = {
  comments: '{0} comments', comment1: '1 comment', sortLabel: 'Sort comments',
  sortNew: 'Newest', sortOld: 'Oldest', sortHot: 'Popular',
  likePage: 'Like this page', like: 'Like', likes: '{0} likes',
  reply: 'Reply', edit: 'Edit', delete: 'Delete', confirmDelete: 'Delete for good?', cancel: 'Cancel',
  save: 'Save', post: 'Post comment', postReply: 'Post reply', loadMore: 'Load more comments',
  moreReplies: 'Show {0} more replies', replyingTo: 'Replying to {0}', deleted: 'This comment was deleted.',
  writeComment: 'Write a comment', writeReply: 'Write a reply', editComment: 'Edit your comment',
  signIn: 'Sign in', signUp: 'Sign up', signOut: 'Sign out', signedInAs: 'Signed in as {0}',
  username: 'Username', password: 'Password', displayName: 'Display name (optional)',
  signInToComment: 'Sign in to comment and like.', noComments: 'No comments yet. Be the first!',
  loading: 'Loading comments…', posted: 'Your comment was posted.', saved: 'Saved.', removed: 'Comment deleted.',
  signedIn: 'Welcome, {0}!', signedOut: 'You are signed out.', edited: '(edited)',
  errAuth: 'Please sign in to continue.', errBadLogin: 'Wrong username or password.',
  errForbidden: 'You are not allowed to do that.', errSite: 'This site may not use these comments.',
  errRate: 'You are going a bit fast. Please try again in {0} seconds.', errRateSoon: 'You are going a bit fast. Please try again shortly.',
  errUnavailable: 'Comments are temporarily unavailable. Please try again in a moment.',
  errNetwork: 'Could not reach the comment server.', errTaken: 'That username is taken.',
  errInvalid: 'Please check your input: {0}', errTooLarge: 'That is too long.', errNotFound: 'That comment no longer exists.',
  errOther: 'Something went wrong ({0}).', errEmpty: 'Please write something first.',
  comments_region: 'Comments',
};
type Strings = typeof en;
const zh: Strings = {
  comments: '{0} 条评论', comment1: '1 条评论', sortLabel: '评论排序',
  sortNew: '最新', sortOld: '最早', sortHot: '最热',
  likePage: '赞这个页面', like: '赞', likes: '{0} 个赞',
  reply: '回复', edit: '编辑', delete: '删除', confirmDelete: '确定删除？', cancel: '取消',
  save: '保存', post: '发表评论', postReply: '发表回复', loadMore: '加载更多评论',
  moreReplies: '展开其余 {0} 条回复', replyingTo: '回复 {0}', deleted: '该评论已删除。',
  writeComment: '写下你的评论', writeReply: '写下你的回复', editComment: '编辑你的评论',
  signIn: '登录', signUp: '注册', signOut: '退出', signedInAs: '已登录：{0}',
  username: '用户名', password: '密码', displayName: '昵称（可选）',
  signInToComment: '登录后即可评论和点赞。', noComments: '还没有评论，来抢沙发吧！',
  loading: '正在加载评论…', posted: '评论已发表。', saved: '已保存。', removed: '评论已删除。',
  signedIn: '欢迎，{0}！', signedOut: '你已退出登录。', edited: '（已编辑）',
  errAuth: '请先登录。', errBadLogin: '用户名或密码错误。',
  errForbidden: '你没有权限这样做。', errSite: '此网站不能使用这些评论。',
  errRate: '操作太频繁了，请 {0} 秒后再试。', errRateSoon: '操作太频繁了，请稍后再试。',
  errUnavailable: '评论服务暂时不可用，请稍后再试。',
  errNetwork: '无法连接评论服务器。', errTaken: '该用户名已被占用。',
  errInvalid: '请检查输入：{0}', errTooLarge: '内容太长了。', errNotFound: '该评论已不存在。',
  errOther: '出错了（{0}）。', errEmpty: '请先写点内容。',
  comments_region: '评论',
};
export type Lang = 'en' | 'zh-CN';
export type Key = keyof Strings;
export type T = (key: Key, ...args: (string | number)[]) => string;

// data-lang wins; then the host page's <html lang>, then the browser's language.
export function pickLang(explicit: string | null | undefined): Lang {
  const l = (explicit || document.documentElement.lang || navigator.language || 'en').toLowerCase();
  return l.startsWith('zh') ? 'zh-CN' : 'en';
}

export function translator(lang: Lang): T {
  const table = lang === 'zh-CN' ? zh : en;
  return (key, ...args) => table[key].replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)]));
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
