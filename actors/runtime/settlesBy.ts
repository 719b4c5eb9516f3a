/** Whether `p` settles before `deadline` (epoch ms); it keeps running either way. */
export const settlesBy = (p: Promise<unknown>, deadline: number): Promise<boolean> => {
  if (!Number.isFinite(deadline)) return p.then(() => true, () => true)
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p.then(() => true, () => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))))
  ]).finally(() => clearTimeout(timer))
}
