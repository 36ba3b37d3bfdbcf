import type { Messages } from './en';

export const zh: Messages = {
  app: {
    name: 'Spillscope',
    tagline: '查看智能体过大的工具结果是如何被保留的',
  },
  nav: {
    overview: '概览',
    sessions: '会话',
    sweep: '预算扫描',
    links: '链接',
    settings: '设置',
  },
  language: {
    label: '语言',
    en: 'English',
    zh: '中文',
  },
  overview: {
    title: '概览',
    version: '版本',
    platform: '平台',
    dataDir: '索引位置',
    roots: '会话文件夹',
    rootsHint: 'Spillscope 只读取这些文件夹，从不写入。',
    exists: '已找到',
    missing: '未找到',
    harness: '工具',
    path: '路径',
    status: '状态',
  },
  empty: {
    sessionsTitle: '尚未索引任何会话',
    sessionsBody: '索引一个会话文件夹后，这里会显示其工具结果、spill 提示和 token 数据。',
    sweepTitle: '暂无可扫描的内容',
    sweepBody: '结果被索引后，可以一次在多个预算下重新运行保留策略。',
    linksTitle: '暂无链接',
    linksBody: '已索引工具结果中的链接会显示在这里，并说明被隐藏的原因。',
  },
  errors: {
    loadFailed: '无法从应用加载数据。',
    retry: '重试',
  },
  common: {
    loading: '加载中…',
  },
};
