/** One term and its value in a dialog's facts list (`<dl className="facts">`). */
export function Fact({ term, value, mono }: { term: string; value: string; mono?: boolean }) {
  return (
    <div className="fact">
      <dt>{term}</dt>
      <dd className={mono ? 'mono' : undefined}>{value}</dd>
    </div>
  );
}
