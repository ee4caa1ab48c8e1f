/** The signature doctor over the log: the delivery's bytes, its last request headers and the secrets configured. */
import type { EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import { diagnose } from '../doctor/doctor';
import { toAttempt } from './views';

export function createDoctorApi(engine: Engine): Pick<EngineApi, 'diagnoseSignature'> {
  const { deliveryViews, log, config } = engine.stores;
  return {
    async diagnoseSignature(input) {
      const row = deliveryViews.detail(input.id);
      if (!row) throw new ValidationError([{ field: 'doctor.id', message: `no delivery with id ${input.id}` }]);
      if (row.body === null) throw new ValidationError([{ field: 'doctor.id', message: `delivery ${input.id} has no stored body to compare with` }]);
      const destinations = config.listDestinations();
      const destination = destinations.find((d) => d.id === row.destination_id);
      const attempts = log.attemptsOf(row.id);
      const last = attempts[attempts.length - 1];
      return diagnose(
        {
          body: row.body,
          secret: destination?.sharedSecret || null,
          sentHeaders: last ? toAttempt(last).requestHeaders : null,
          otherSecrets: destinations.flatMap((d) => (d.id !== row.destination_id && d.sharedSecret ? [{ name: d.name, secret: d.sharedSecret }] : [])),
        },
        input.pasted,
        input.as ?? 'auto',
      );
    },
  };
}
