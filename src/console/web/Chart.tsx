import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"

// A line chart per day (uPlot: a canvas, its styles set through the DOM, never a style attribute in markup, so the
// page's CSP holds). The canvas is hidden from assistive technology: the same numbers are in a table beside it.

export interface Series { readonly label: string; readonly values: ReadonlyArray<number | null>; readonly color: string }

const HEIGHT = 220

export const Chart = ({ title, dates, series }: { title: string; dates: ReadonlyArray<string>; series: ReadonlyArray<Series> }) => {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (el === null) return
    const x = dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000)
    const plot = new uPlot({
      width: el.clientWidth, height: HEIGHT, tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true } }))],
      axes: [{}, { size: 56 }], legend: { live: false }
    }, [x, ...series.map((s) => [...s.values])] as uPlot.AlignedData, el)
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: HEIGHT }))
    resize.observe(el)
    return () => { resize.disconnect(); plot.destroy() }
  }, [dates, series])
  return (
    <figure class="chart-figure">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart" aria-hidden="true" />
      <details>
        <summary>{title}: the numbers</summary>
        <table>
          <thead><tr><th scope="col">Day</th>{series.map((s) => <th key={s.label} scope="col" class="num">{s.label}</th>)}</tr></thead>
          <tbody>{dates.map((d, i) => <tr key={d}><th scope="row">{d}</th>{series.map((s) => <td key={s.label} class="num">{s.values[i] ?? "—"}</td>)}</tr>)}</tbody>
        </table>
      </details>
    </figure>
  )
}
