// The blog pages' own strings in English and Simplified Chinese; those the widget has already
// (sign in, username, counts, ...) come from i18n.ts, which site.js carries anyway.
import { Lang, strings as widgetStrings, tableTranslator } from './i18n';

const strings = {
  siteName: ['Plaudit', 'Plaudit'],
  home: ['Articles', '文章'],
  write: ['Write', '写文章'],
  drafts: ['My drafts', '我的草稿'],
  moderation: ['Moderation', '审核'],
  noAccount: ['No account yet?', '还没有账号？'],
  haveAccount: ['Have an account?', '已有账号？'],
  all: ['All', '全部'],
  articles: ['Articles', '文章'],
  posts: ['Posts', '帖子'],
  kindFilter: ['Show', '显示'],
  pinned: ['Pinned', '置顶'],
  draft: ['Draft', '草稿'],
  by: ['by {0}', '作者：{0}'],
  views: ['{0} views', '{0} 次阅读'],
  view1: ['1 view', '1 次阅读'],
  like1: ['1 like', '1 个赞'],
  prev: ['Newer', '上一页'],
  next: ['Older', '下一页'],
  pageOf: ['Page {0} of {1}', '第 {0} / {1} 页'],
  nothing: ['Nothing published yet.', '还没有发布任何内容。'],
  noDrafts: ['No drafts.', '没有草稿。'],
  likeArticle: ['Like this article', '赞这篇文章'],
  loadingPage: ['Loading…', '加载中…'],
  notFound: ['Not found.', '找不到该页面。'],
  title: ['Title', '标题'],
  body: ['Body (HTML)', '正文（HTML）'],
  bodyHelp: ['Scripts, styles, event handlers, iframes and forms are removed on save.',
             '保存时会移除脚本、样式、事件处理器、iframe 和表单。'],
  publish: ['Published (uncheck to keep as a draft)', '发布（不勾选则保存为草稿）'],
  pin: ['Pinned to the top of the list', '置顶'],
  allowComments: ['Allow comments', '允许评论'],
  newArticle: ['New article', '新文章'],
  editArticle: ['Edit article', '编辑文章'],
  needAuthor: ['Only authors and admins may write articles.', '只有作者和管理员可以写文章。'],
  noAdmin: ['This site has no admin yet: open the setup link from plauditd\'s log.',
            '本站还没有管理员：请打开 plauditd 日志中的设置链接。'],
  setupTitle: ['Create the first admin', '创建第一个管理员'],
  setupDone: ['Setup is done: this site has an admin.', '设置已完成：本站已有管理员。'],
  setupNoToken: ['Open the setup link printed in plauditd\'s log (it carries a token).',
                 '请打开 plauditd 日志中打印的设置链接（其中带有令牌）。'],
  setupCreate: ['Create admin', '创建管理员'],
  errBadToken: ['That setup link is not valid (wrong or used token). Use the newest link from the log.',
                '该设置链接无效（令牌错误或已使用）。请使用日志中最新的链接。'],
  errRate: ['Too many tries. Please wait a moment.', '尝试次数过多，请稍候。'],
  search: ['Search', '搜索'],
  searchLabel: ['Search articles and posts', '搜索文章和帖子'],
  searchResults: ['Search: {0}', '搜索：{0}'],
  found: ['{0} found', '找到 {0} 篇'],
  noResults: ['Nothing found for “{0}”.', '没有找到与“{0}”相关的内容。'],
} satisfies Record<string, [string, string]>;

const all = { ...widgetStrings, ...strings };
export type SiteKey = keyof typeof all;
export type SiteT = (key: SiteKey, ...args: (string | number)[]) => string;
// "1 like", "2 likes": English needs the singular, Chinese reads the same either way.
export const counted = (t: SiteT, n: number, one: SiteKey, many: SiteKey) => n === 1 ? t(one) : t(many, n);

export const siteTranslator = (lang: Lang): SiteT => tableTranslator(all, lang);
