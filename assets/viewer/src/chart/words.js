// The words of the Chinese titles posviz draws, which a wrapped title never breaks inside:
// Chinese has no spaces, and a line may break between any two characters, but 按词 / 元对齐
// splits 词元 (token) in two. A browser's own word segmenter does not know the lesson's terms
// (Intl.Segmenter reads 词元 as 词 | 元), so the words are listed here, one decision per word:
// the lesson's terms first, then the words around them. A run of Chinese characters is read
// as the fewest listed words (a character listed in none is a word of its own);
// tests/documents/test_documents.py fails on a title with a character no word here covers.

const TERMS = `
头 层 桶 表 键 上界 个数 代码 位置 余弦 信息 倒序 偏移 偏置 公式 分数 变体
句子 名次 因子 因果 坐标 宽度 对数 对称 小块 常数 底数 弧度 所得 损失 掩码
数值 文本 斜率 方案 旋转 权重 查询 模型 正弦 波长 温度 灰色 点积 相对 示意
系数 绝对 维度 编号 编码 衰减 训练 论文 词元 距离 输入 输出 远程 通道 顺序
高度 位置数 可学习 图像块 平移量 注意力 相似度 词嵌入 通道对 通道数 验证集
轴 增益 级数 频率 长度 比例 窗口 压缩`;
const AROUND = `
上 不 与 个 中 乘 了 倍 做 其 出 列 刚 到 前 加 原 各 后 和 在 外 对
已 快 想 慢 所 把 按 数 新 无 时 是 最 有 此 每 由 的 看 第 能 行 被
转 除 随 一个 一圈 不动 不含 两个 两种 之后 之间 什么 以及 任何 使用 依次
保持 全部 关掉 关闭 出现 前面 加上 加权 单个 参考 变了 变化 句末 可能 各种
各自 同时 后移 哪些 四个 四种 复制 多少 多远 对齐 尚未 展示 平均 往回 所在
所有 所选 所需 拉伸 排列 搜索 携带 放在 最大 每个 每列 每层 每行 每种 比较 相差
相隔 看到 算出 缓存 表示 转满 重复 除以 下一个 倒过来 同一组 每一层 每一行
看不到 第一个 最后一个
内 哪 它 你 从 多 得 动 让 这 逐 那 线 为止 一段 关注 哪里 范围 开始 怎样 保留
分 得分 偏离 没有 转动 配对 错误 这个 最多 逐对 每一对 起作用
只 用 里 仍 两半 只有 开着 忽略 整块 相邻 读成 一部分 同一种
或 本身 部分`;

export const WORDS = new Set(`${TERMS} ${AROUND}`.split(/\s+/).filter(Boolean));
const LONGEST = Math.max(...[...WORDS].map((word) => word.length));

// A run of Chinese characters as words: the fewest that cover it, the longer word first where
// two ways take as many (tests/helpers/words.py reads them the same way).
export function words(run) {
  const n = run.length;
  const fewest = Array(n + 1).fill(Infinity);
  const next = Array(n + 1);
  fewest[n] = 0;
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = Math.min(n, i + LONGEST); j > i; j -= 1) {
      if ((j - i === 1 || WORDS.has(run.slice(i, j))) && 1 + fewest[j] < fewest[i]) {
        fewest[i] = 1 + fewest[j];
        next[i] = j;
      }
    }
  }
  const found = [];
  for (let i = 0; i < n; i = next[i]) found.push(run.slice(i, next[i]));
  return found;
}
